// editor.js: the query editor of Explore: a textarea over a highlighted copy of its text, a
// list of completions (metrics, functions, keys and layers from list-fields, and keywords) that fits the
// clause at the caret, and the mark of a QUERY-SYNTAX error at its position.

import {KEYWORDS, statements, tokens} from './query.js';
import {el} from './ui.js';

const OPERATORS = ['AND', 'OR', 'NOT', 'IN', 'AS', 'TOTAL'];
const MAX_SHOWN = 8;

// Editor drives the textarea input, highlight (a pre under it) and list (the completions).
export class Editor {
  constructor(input, highlight, list, {onRun}) {
    Object.assign(this, {input, highlight, list, onRun});
    this.fields = [];
    this.mark = null; // {start, end} of an error
    this.items = [];
    this.active = 0;
    input.addEventListener('input', () => {
      this.mark = null;
      this.paint();
      this.complete();
    });
    input.addEventListener('scroll', () => { highlight.scrollTop = input.scrollTop; });
    input.addEventListener('keydown', (ev) => this.key(ev));
    input.addEventListener('blur', () => setTimeout(() => this.close(), 150));
    list.addEventListener('mousedown', (ev) => {
      const li = ev.target.closest('li');
      if (!li) return;
      ev.preventDefault();
      this.accept(Number(li.dataset.index));
    });
  }

  get value() { return this.input.value; }

  set value(text) {
    this.input.value = text;
    this.mark = null;
    this.paint();
  }

  // setFields takes list-fields' answer: names and kinds to highlight and complete.
  setFields(fields) {
    this.fields = fields || [];
    this.paint();
  }

  // markError marks the token at position (of a QUERY-SYNTAX error) and puts the caret there.
  markError(position) {
    const text = this.input.value;
    const pos = Math.max(0, Math.min(position, text.length));
    const t = tokens(text).find((k) => k.start <= pos && pos < k.end);
    this.mark = {start: pos, end: t ? t.end : Math.min(pos + 1, text.length)};
    this.paint();
    this.input.focus();
    this.input.setSelectionRange(pos, pos);
  }

  // kindOf tells how to colour a word: a field's kind, "keyword", "number" or "string".
  kindOf(word) {
    const lower = word.toLowerCase();
    const f = this.fields.find((x) => x.name.toLowerCase() === lower || (x.name === 'time(N)' && lower === 'time') ||
      (x.kind === 'function' && x.name.slice(0, -3).toLowerCase() === lower));
    if (f) return f.kind;
    if (KEYWORDS.some((k) => k.toLowerCase() === lower) || lower.startsWith('@')) return 'keyword';
    if (/^\d/.test(word)) return 'number';
    if (/^["']/.test(word)) return 'string';
    return '';
  }

  // paint copies the text into the highlight, each token in a span of its kind, the error in
  // a mark.
  paint() {
    const text = this.input.value;
    const out = [];
    let at = 0;
    const push = (from, to, cls) => {
      if (to <= from) return;
      const piece = text.slice(from, to);
      const markHere = this.mark && from < this.mark.end && to > this.mark.start;
      if (!markHere) {
        out.push(cls ? el('span', {class: `tok-${cls}`}, piece) : document.createTextNode(piece));
        return;
      }
      // Split around the mark.
      const a = Math.max(from, this.mark.start);
      const b = Math.min(to, this.mark.end);
      push(from, a, cls);
      out.push(el('mark', {class: 'error-mark', 'data-start': a}, text.slice(a, b)));
      push(b, to, cls);
    };
    for (const t of tokens(text)) {
      push(at, t.start, '');
      push(t.start, t.end, this.kindOf(t.text));
      at = t.end;
    }
    push(at, text.length, '');
    if (this.mark && this.mark.start >= text.length) out.push(el('mark', {class: 'error-mark at-end', 'data-start': text.length}, ' '));
    out.push(document.createTextNode('\n')); // the pre keeps a last empty line as tall as the textarea's
    this.highlight.replaceChildren(...out);
  }

  // candidates are the completions of word where the caret is, fitting the clause it is in.
  candidates(word, before) {
    const sts = statements(before);
    const st = sts.at(-1);
    const clause = before.trimEnd().endsWith(';') || !st ? 'values' : st.parts.at(-1).clause;
    const names = (kind) => this.fields.filter((f) => f.kind === kind).map((f) => f.name.replace('(N)', '(60)'));
    // A function completes to its name and "(": p95(m) to p95(.
    const functions = () => names('function').map((n) => n.replace('(m)', '('));
    let list;
    switch (clause) {
      case 'by': list = names('key'); break;
      case 'from': list = names('layer'); break;
      case 'where': list = [...names('key').filter((n) => !n.startsWith('time')), ...OPERATORS]; break;
      case 'having': list = [...names('metric'), ...functions(), ...OPERATORS]; break;
      case 'since': case 'until': list = ['@now']; break;
      default: list = [...names('metric'), ...functions(), ...KEYWORDS.filter((k) => k !== '@now')];
    }
    const lower = word.toLowerCase();
    return [...new Set(list)].filter((n) => n.toLowerCase().startsWith(lower) && n.toLowerCase() !== lower);
  }

  complete() {
    const caret = this.input.selectionStart;
    const before = this.input.value.slice(0, caret);
    const word = before.match(/[\w.@]*$/)[0];
    const items = word ? this.candidates(word, before.slice(0, caret - word.length)).slice(0, MAX_SHOWN) : [];
    this.items = items.map((name) => ({name, word}));
    this.active = 0;
    this.drawList();
  }

  drawList() {
    const open = this.items.length > 0;
    this.list.hidden = !open;
    this.input.setAttribute('aria-expanded', String(open));
    this.list.replaceChildren(...this.items.map((it, i) => {
      const li = el('li', {role: 'option', id: `completion-${i}`, 'data-index': i,
        'aria-selected': String(i === this.active)}, it.name);
      const f = this.fields.find((x) => x.name.replace('(N)', '(60)') === it.name);
      if (f) li.append(el('small', {}, f.kind));
      return li;
    }));
    if (open) this.input.setAttribute('aria-activedescendant', `completion-${this.active}`);
    else this.input.removeAttribute('aria-activedescendant');
  }

  close() {
    this.items = [];
    this.drawList();
  }

  accept(i) {
    const it = this.items[i];
    if (!it) return;
    const caret = this.input.selectionStart;
    const start = caret - it.word.length;
    this.input.setRangeText(`${it.name} `, start, caret, 'end');
    this.close();
    this.paint();
    this.input.focus();
  }

  key(ev) {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      this.close();
      this.onRun();
      return;
    }
    if (!this.items.length) return;
    const n = this.items.length;
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      this.active = (this.active + (ev.key === 'ArrowDown' ? 1 : n - 1)) % n;
      this.drawList();
    } else if (ev.key === 'Enter' || ev.key === 'Tab') {
      this.accept(this.active);
    } else if (ev.key === 'Escape') {
      this.close();
    } else {
      return;
    }
    ev.preventDefault();
    ev.stopPropagation();
  }
}
