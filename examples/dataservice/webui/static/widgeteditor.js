// widgeteditor.js: the editor of a widget (a dialog): title, kind, unit and queries, the
// fields of the query language, and a QUERY-SYNTAX error shown under the query it is in.

import {shownKind, storedKind} from './sankey.js';
import {$, el, busy, caretLine, showFormError} from './ui.js';

// EXAMPLES are the query shown in an empty editor, per kind.
const EXAMPLES = {
  number: 'traffic',
  timeseries: 'traffic BY time(60)',
  bar: 'traffic BY application TOP 10',
  pie: 'traffic BY protocol',
  table: 'traffic, packets BY server.ip TOP 20',
  sankey: 'traffic BY client.ip, server.ip, application',
};

// WidgetEditor edits widgets over api; fields() gives list-fields' answer, dashboard() the open
// dashboard's id, and onSaved(widget) receives each widget saved.
export class WidgetEditor {
  constructor(api, fields, {dashboard, onSaved}) {
    Object.assign(this, {api, fields, dashboard, onSaved});
    this.editing = null; // the widget being edited, or null for a new one
    $('add-query').addEventListener('click', () => this.addQueryField().focus());
    $('widget-kind').addEventListener('change', () => {
      for (const t of document.querySelectorAll('#widget-queries textarea')) t.placeholder = EXAMPLES[$('widget-kind').value];
    });
    $('widget-form').addEventListener('submit', (ev) => this.save(ev));
  }

  // open opens the editor on w, or on a new widget when w is null.
  open(w) {
    this.editing = w || null;
    $('widget-dialog-title').textContent = w ? 'Edit widget' : 'New widget';
    $('widget-title').value = w?.title || '';
    $('widget-kind').value = w ? shownKind(w) : 'number';
    $('widget-unit').value = w?.options?.unit || '';
    $('widget-queries').replaceChildren();
    for (const q of w?.queries || ['']) this.addQueryField(q);
    showFormError('widget-error', '');
    this.loadFields();
    $('widget-dialog').showModal();
    $('widget-title').focus();
  }

  addQueryField(text = '') {
    const box = $('widget-queries');
    const n = box.children.length + 1;
    const wrap = el('div', {class: 'query'});
    const label = el('label', {}, `Query ${n}`);
    const area = el('textarea', {class: 'query-input', rows: 2, spellcheck: 'false', maxlength: 10000,
      placeholder: EXAMPLES[$('widget-kind').value]});
    area.value = text;
    area.addEventListener('input', () => this.clearQueryError(wrap));
    label.append(area);
    wrap.append(label);
    if (n > 1) {
      const remove = el('button', {type: 'button', class: 'btn ghost small remove-query'}, 'Remove');
      remove.addEventListener('click', () => { wrap.remove(); this.renumberQueries(); });
      wrap.append(remove);
    }
    box.append(wrap);
    return area;
  }

  renumberQueries() {
    [...$('widget-queries').children].forEach((q, i) => {
      q.querySelector('label').firstChild.textContent = `Query ${i + 1}`;
    });
  }

  clearQueryError(wrap) {
    wrap.querySelector('.query-error')?.remove();
    wrap.querySelector('textarea').classList.remove('invalid');
  }

  // showQueryError marks the query a QUERY-SYNTAX error names and shows where it is wrong.
  showQueryError(err) {
    const wraps = [...$('widget-queries').children];
    const wrap = wraps[err.attrs.index ?? 0] || wraps[0];
    this.clearQueryError(wrap);
    const area = wrap.querySelector('textarea');
    area.classList.add('invalid');
    const text = area.value;
    const pos = Math.max(0, Math.min(Number(err.attrs.position) || 0, text.length));
    const box = el('div', {class: 'query-error', role: 'alert'}, err.message);
    box.append(caretLine(text, pos));
    wrap.querySelector('label').after(box);
    area.focus();
    area.setSelectionRange(pos, pos);
  }

  async save(ev) {
    ev.preventDefault();
    const queries = [...document.querySelectorAll('#widget-queries textarea')].map((t) => t.value.trim() || t.placeholder);
    const unit = $('widget-unit').value;
    const {unit: _, ...kept} = this.editing?.options || {}; // options the editor does not show stay
    const args = {
      title: $('widget-title').value.trim(),
      queries,
      ...storedKind($('widget-kind').value, unit ? {...kept, unit} : kept),
    };
    const w = this.editing;
    await busy('widget-save', 'widget-error', async () => {
      let saved;
      try {
        saved = w ? await this.api.call('update-widget', {id: w.id, ...args})
          : await this.api.call('create-widget', {dashboard: this.dashboard(), ...args});
      } catch (e) {
        if (e.code === 'QUERY-SYNTAX') {
          this.showQueryError(e);
          return;
        }
        throw e;
      }
      $('widget-dialog').close();
      this.onSaved(saved);
    });
  }

  async loadFields() {
    let list;
    try {
      list = await this.fields();
    } catch {
      return;
    }
    $('fields-list').replaceChildren(...list.flatMap((f) => [
      el('code', {}, f.name), el('span', {class: 'muted'}, `${f.kind}: ${f.description}`),
    ]));
  }
}
