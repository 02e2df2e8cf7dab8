// explore.js: Explore (#/explore?q=<query>&range=<preset> or &since=&until=): a query editor,
// its answer as a table and as each chart kind, saving it as a widget; and the drill-down that
// brings a clicked key here as a filter.

import {AUTH_NEEDED} from './api.js';
import * as charts from './charts.js';
import {Editor} from './editor.js';
import {Picker, bounds, fromParams, toParams, windowOf} from './period.js';
import {filterEdits, literal, periodEdits, rewrite, statements} from './query.js';
import {formatKey} from './format.js';
import {addressFilter, renderRoute, routeQuery} from './route.js';
import {storedKind} from './sankey.js';
import {askCompare, compareButton, download, toPNG} from './share.js';
import {$, busy, caretLine, el, showFormError} from './ui.js';

// KINDS are the ways the page draws an answer, as widgets do.
export const KINDS = [
  {kind: 'table', label: 'Table'},
  {kind: 'timeseries', label: 'Time series'},
  {kind: 'bar', label: 'Bar chart'},
  {kind: 'pie', label: 'Pie chart'},
  {kind: 'number', label: 'Number'},
  {kind: 'sankey', label: 'Sankey'},
];

// exploreHash is the address of Explore with query, period and, when chosen, the kind shown.
export function exploreHash(query, period, kind) {
  const params = new URLSearchParams({q: query});
  if (kind) params.set('kind', kind);
  return `#/explore?${toParams(period, params)}`;
}

// withPeriod gives query with the period in place of its own (none: unchanged), and the map of
// positions back to the query.
export function withPeriod(query, period) {
  if (!period) return {text: query, toSource: (p) => p};
  return rewrite(query, periodEdits(query, bounds(period)));
}

// drillQuery adds to the statement of expr at index (to every statement when index is
// undefined) a filter for each key picked ({name, value}) but time, written by the key's type
// from list-fields (fields), unless the statement has it already; and puts in place of each
// picked key of its BY the next of NEXT_KEYS it neither groups nor filters by.
export function drillQuery(expr, keys, fields, index) {
  const sts = statements(expr);
  const targets = sts.map((st, i) => ({st, i})).filter(({i}) => index === undefined || i === index);
  const squash = (t) => t.replace(/\s+/g, '');
  const whereOf = (st) => {
    const w = st.parts.find((p) => p.clause === 'where');
    return w?.tokens.length ? squash(expr.slice(w.tokens[0].start, w.tokens.at(-1).end)) : '';
  };
  const drilled = keys.filter((k) => !/^time/i.test(k.name));
  const conds = drilled.map((k) => {
    // A route's list (an AS path, communities): each of its values, as WHERE takes them.
    if (Array.isArray(k.value)) return k.value.map((v) => `${k.name} = ${literal('', v)}`).join(' AND ');
    const f = fields?.find((x) => x.name === k.name);
    const guess = typeof k.value === 'number' ? 'port' : /^[\d.:a-f]+$/i.test(k.value) && /[.:]/.test(k.value) ? 'ip' : '';
    return `${k.name} = ${literal(f?.type || guess, k.value)}`;
  }).filter((c) => !targets.every(({st}) => whereOf(st).includes(squash(c)))); // never twice
  if (!conds.length) return expr;
  const edits = filterEdits(expr, conds.join(' AND '), index);
  // Each drilled key of BY gives way to the next useful key, so that the answer breaks the
  // traffic down further instead of being one row.
  const known = (name) => !fields?.length || fields.some((f) => f.name === name);
  for (const {st} of targets) {
    const by = st.parts.find((p) => p.clause === 'by');
    if (!by) continue;
    const items = splitItems(by.tokens);
    const names = items.map((ts) => squash(expr.slice(ts[0].start, ts.at(-1).end)));
    const where = whereOf(st);
    const taken = new Set([...names, ...drilled.map((k) => k.name)]);
    items.forEach((ts, j) => {
      if (!drilled.some((k) => k.name === names[j])) return;
      const free = (n) => n && !taken.has(n) && !where.includes(`${n}=`) && known(n);
      const next = [DRILL_NEXT[names[j]]].find(free) || NEXT_KEYS.find(free);
      if (!next) return;
      taken.add(next);
      edits.push({start: ts[0].start, end: ts.at(-1).end, text: next});
    });
  }
  return rewrite(expr, edits).text;
}

// drillStep gives the drill-down path after a step from query by keys to next: path, or a new
// one starting at query, with next's step (named by its filters, and keeping its keys for
// layerDrills) at the end.
export function drillStep(path, query, keys, next) {
  const picked = keys.filter((k) => !/^time/i.test(k.name));
  const label = picked.map((k) => `${k.name} = ${formatKey(k.name, k.value)}`).join(', ');
  const from = path.length ? path : [{label: 'Start', query}];
  return [...from, {label, query: next, keys: picked}];
}

// LAYER_DRILLS are the drill-downs from an application or a server into its application
// layers: its slowest HTTP paths, and for DNS (the application dns, or port 53) its failing
// names. The statement's filter is the picked keys a layer takes (the transport's).
const LAYER_DRILLS = [
  {label: 'Slowest HTTP paths', layer: 'http', when: (k) => ['application', 'server.name', 'server.ip'].includes(k.name),
    query: (where) => `p95(srt) AS "p95", records BY http.host, http.path FROM http WHERE ${where} TOP 10`},
  {label: 'DNS failures', layer: 'dns',
    when: (k) => (k.name === 'application' && k.value === 'dns') || (k.name === 'server.port' && k.value === 53),
    query: (where) => `records BY dns.qname, dns.rcode FROM dns WHERE dns.rcode IN (NXDOMAIN, SERVFAIL, timeout) AND ${where} TOP 10`},
];

// layerDrills gives the layer drill-downs ({label, query}) of the keys picked ({name, value}),
// by list-fields (fields): none when no key names an application or a server.
export function layerDrills(keys, fields) {
  return LAYER_DRILLS.filter((d) => keys?.some(d.when)).map((d) => {
    const takes = (k) => {
      const f = fields?.find((x) => x.name === k.name);
      return f && (!f.layers?.length || f.layers.includes(d.layer));
    };
    const where = keys.filter(takes).map((k) => {
      const f = fields.find((x) => x.name === k.name);
      return `${k.name} = ${literal(f.type, k.value)}`;
    }).join(' AND ');
    return where && {label: d.label, query: d.query(where)};
  }).filter(Boolean);
}

// DRILL_NEXT is, for a key, the key a drill-down on it breaks traffic down by first (a
// country into its autonomous systems, a zone or an AS into its addresses); NEXT_KEYS then.
export const DRILL_NEXT = {
  'client.country': 'client.asn', 'server.country': 'server.asn',
  'client.asn': 'client.ip', 'server.asn': 'server.ip',
  'client.zone': 'client.ip', 'server.zone': 'server.ip',
  'exporter': 'in_if', 'exporter.name': 'in_if',
  'client.as_path': 'client.ip', 'server.as_path': 'server.ip',
  'client.communities': 'client.as_path', 'server.communities': 'server.as_path',
};

// NEXT_KEYS are the keys a drill-down breaks traffic down by next, in this order.
export const NEXT_KEYS = ['application', 'server.ip', 'server.port', 'client.ip', 'protocol', 'client.port'];

// splitItems cuts a clause's tokens at its commas outside parentheses.
function splitItems(tokens) {
  const items = [[]];
  let depth = 0;
  for (const t of tokens) {
    if (t.text === '(') depth++;
    if (t.text === ')') depth--;
    if (depth === 0 && t.text === ',') items.push([]);
    else items.at(-1).push(t);
  }
  return items.filter((i) => i.length);
}

// Explore shows and runs the Explore view; fields() gives list-fields' answer (a promise).
export class Explore {
  constructor(api, fields) {
    this.api = api;
    this.fields = fields;
    this.period = null;
    this.path = []; // the drill-down steps to the query shown: [{label, query}]
    this.kind = 'table';
    this.results = null;
    this.editor = new Editor($('explore-input'), $('explore-highlight'), $('explore-completions'),
      {onRun: () => this.run()});
    this.picker = new Picker('explore-period', (p) => { this.period = p; this.run(); });
    $('explore-period').append(this.picker.element);
    $('explore-form').addEventListener('submit', (ev) => { ev.preventDefault(); this.run(); });
    $('explore-save').addEventListener('click', () => this.openSave());
    $('explore-alert').addEventListener('click', () => {
      location.hash = `#/alerts?q=${encodeURIComponent($('explore-input').value)}`;
    });
    $('save-form').addEventListener('submit', (ev) => this.save(ev));
    $('explore-kinds').replaceChildren(...KINDS.map((k) => {
      const b = el('button', {type: 'button', role: 'tab', class: 'kind-tab', 'data-kind': k.kind}, k.label);
      b.addEventListener('click', () => this.showKind(k.kind));
      return b;
    }));
    $('explore-kinds').addEventListener('keydown', (ev) => this.arrowTabs(ev));
    // Compare (a time series) overlays an earlier period; PNG downloads the answer as drawn.
    this.compare = '';
    this.compareButton = compareButton((mode) => {
      this.compare = mode;
      this.previous = null;
      if (mode) this.askPrevious();
      else this.draw();
    });
    const png = el('button', {type: 'button', class: 'btn ghost png-widget', title: 'Download the answer as a PNG picture'}, 'PNG');
    png.addEventListener('click', async () => {
      download('explore.png', await toPNG($('explore-chart'), {title: this.query}));
    });
    $('explore-tools').append(this.compareButton, png);
  }

  // askPrevious asks for the answer of the period Explore compares with, and draws it over.
  async askPrevious() {
    const mode = this.compare;
    const win = this.results && windowOf(this.period, this.results[0]?.meta?.accumulated_time);
    if (!mode || !win) return;
    const query = this.query;
    try {
      const previous = await askCompare(this.api, query, win, mode);
      if (this.compare !== mode || this.query !== query) return;
      this.previous = previous;
      this.draw();
    } catch {
      // no overlay: the answer itself stands
    }
  }

  // show shows the view for the fragment's parameters, running the query they hold.
  async show(params) {
    this.fieldList = await this.fields();
    this.editor.setFields(this.fieldList);
    this.period = fromParams(params);
    this.picker.show(this.period);
    const q = params.get('q') || '';
    const handed = JSON.parse(sessionStorage.getItem('drill') || 'null'); // from a dashboard
    sessionStorage.removeItem('drill');
    if (handed?.at(-1)?.query === q) this.path = handed;
    this.touchedKind = KINDS.some((k) => k.kind === params.get('kind'));
    if (this.touchedKind) this.kind = params.get('kind');
    if (this.editor.value !== q) this.editor.value = q;
    showFormError('explore-notice', '');
    if (q) await this.execute();
    else this.clear();
  }

  // showPath shows the drill-down path: each step a button back to it, the last the query shown.
  showPath() {
    const nav = $('explore-path');
    nav.hidden = this.path.length < 2;
    nav.replaceChildren(...this.path.flatMap((step, i) => {
      const last = i === this.path.length - 1;
      const item = last ? el('span', {'aria-current': 'step'}, step.label)
        : el('button', {type: 'button', class: 'btn ghost small'}, step.label);
      if (!last) {
        item.addEventListener('click', () => {
          this.path = this.path.slice(0, i + 1);
          this.editor.value = step.query;
          this.run();
        });
      }
      return i ? [el('b', {'aria-hidden': 'true'}, '›'), item] : [item];
    }));
    this.showLayers();
  }

  // showLayers offers, after a drill-down on an application or a server, its layers: its
  // slowest HTTP paths, its DNS failures; each a step of the path.
  showLayers() {
    const nav = $('explore-layers');
    const last = this.path.at(-1);
    const drills = this.path.length > 1 ? layerDrills(last.keys, this.fieldList) : [];
    nav.hidden = !drills.length;
    nav.replaceChildren(...drills.map((d) => {
      const b = el('button', {type: 'button', class: 'btn ghost small'}, d.label);
      b.addEventListener('click', () => {
        this.path = [...this.path, {label: d.label, query: d.query}];
        this.editor.value = d.query;
        this.run();
      });
      return b;
    }));
  }

  clear() {
    this.results = null;
    $('explore-result').hidden = true;
    $('explore-save').disabled = true;
    $('explore-error').hidden = true;
  }

  // run puts the query and period in the address (which shows them), or runs them again.
  run() {
    const q = this.editor.value.trim();
    if (!q) {
      location.hash = `#/explore${this.period ? `?${toParams(this.period, new URLSearchParams())}` : ''}`;
      return;
    }
    const hash = exploreHash(q, this.period, this.touchedKind ? this.kind : '');
    if (location.hash !== hash) location.hash = hash;
    else this.execute();
  }

  async execute() {
    const query = this.editor.value.trim();
    const {text, toSource} = withPeriod(query, this.period);
    $('explore-error').hidden = true;
    $('explore-run').disabled = true;
    try {
      this.results = await this.api.call('query', {expr: text});
    } catch (e) {
      this.results = null;
      if (e.code === AUTH_NEEDED) return;
      this.showError(e, query, toSource);
      return;
    } finally {
      $('explore-run').disabled = false;
    }
    this.query = query;
    if (!this.path.some((p) => p.query === query)) this.path = []; // a query of its own
    this.showPath();
    this.shapes = charts.describeQuery(text);
    const hasTime = this.shapes.some((s) => s.keys.some((k) => /^time/i.test(k)));
    if (!this.touchedKind) this.kind = hasTime ? 'timeseries' : 'table';
    $('explore-result').hidden = false;
    $('explore-save').disabled = false;
    this.showKind(this.kind, false);
    this.previous = null;
    if (this.compare) this.askPrevious();
    this.showRoute(query);
  }

  // showRoute shows the route panel when query keeps one address and the service knows routes
  // (list-fields has the route keys), and hides it otherwise.
  async showRoute(query) {
    const box = $('explore-route');
    const a = addressFilter(query);
    if (!a || !this.fieldList?.some((f) => f.name === `${a.side}.as_path`)) {
      box.hidden = true;
      return;
    }
    try {
      const [answer] = await this.api.call('query', {expr: withPeriod(routeQuery(a.side, a.addr), this.period).text});
      if (this.query === query) renderRoute(box, a.addr, answer);
    } catch {
      box.hidden = true; // the answer itself stands
    }
  }

  // showError shows an error; a QUERY-SYNTAX one is marked at its position in the query.
  showError(e, query, toSource) {
    const box = $('explore-error');
    $('explore-result').hidden = true;
    $('explore-save').disabled = true;
    if (e.code !== 'QUERY-SYNTAX') {
      box.replaceChildren(e.message);
      box.hidden = false;
      return;
    }
    const pos = Math.min(toSource(Number(e.attrs.position) || 0), query.length);
    box.replaceChildren(`QUERY-SYNTAX at position ${pos}: expected ${e.attrs.expected}` +
      (e.attrs.message ? ` (${e.attrs.message})` : ''), caretLine(query, pos));
    box.dataset.position = pos;
    box.hidden = false;
    this.editor.markError(pos);
  }

  showKind(kind, touched = true) {
    this.kind = kind;
    if (touched) {
      this.touchedKind = true;
      if (this.query) history.replaceState(null, '', exploreHash(this.query, this.period, kind));
    }
    for (const b of $('explore-kinds').children) {
      const on = b.dataset.kind === kind;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
    }
    if (!this.results) return;
    this.draw();
  }

  draw() {
    const chart = $('explore-chart');
    chart.dataset.kind = this.kind;
    this.hidden ??= new Set();
    this.compareButton.hidden = this.kind !== 'timeseries';
    charts.render(chart, this.kind, this.results, this.shapes, {
      previous: this.compare ? this.previous : null,
      tooltip: $('tooltip'),
      win: windowOf(this.period, this.results[0]?.meta?.accumulated_time),
      hidden: this.hidden,
      sort: this.sort ??= {},
      onZoom: (since, until) => { this.period = {since, until}; this.run(); },
      onPick: (pick) => {
        const next = drillQuery(this.query, pick.keys, this.fieldList, pick.statement);
        if (next === this.query) return;
        this.path = drillStep(this.path, this.query, pick.keys, next);
        this.editor.value = next;
        this.run();
      },
    });
    const meta = this.results[0]?.meta || {};
    this.picker.own(this.results.map((r) => r.meta?.accumulated_time));
    const rows = this.results.reduce((a, r) => a + (r.data?.length || 0), 0);
    $('explore-foot').replaceChildren(
      el('span', {'data-accumulated': meta.accumulated_time ?? ''}, `${charts.formatDuration(meta.accumulated_time || 0)} of records`),
      el('span', {}, `${rows} row${rows === 1 ? '' : 's'} in ${(meta.elapsed ?? 0).toFixed(3)} s`));
  }

  // arrowTabs moves between the kind tabs with the arrow keys.
  arrowTabs(ev) {
    if (ev.key !== 'ArrowRight' && ev.key !== 'ArrowLeft') return;
    const i = KINDS.findIndex((k) => k.kind === this.kind);
    const next = KINDS[(i + (ev.key === 'ArrowRight' ? 1 : KINDS.length - 1)) % KINDS.length].kind;
    this.showKind(next);
    $('explore-kinds').querySelector(`[data-kind=${next}]`).focus();
  }

  async openSave() {
    const list = await this.api.call('list-dashboards');
    $('save-dashboard').replaceChildren(...list.map((d) => el('option', {value: d.id}, d.title)));
    $('save-kind').replaceChildren(...KINDS.map((k) => el('option', {value: k.kind}, k.label)));
    $('save-kind').value = this.kind;
    $('save-title').value = this.query.slice(0, 200);
    showFormError('save-error', list.length ? '' : 'There is no dashboard yet: create one first.');
    $('save-ok').disabled = !list.length;
    $('save-dialog').showModal();
    $('save-title').select();
  }

  // save adds the query (as written, without the period: a dashboard gives its own) to the
  // chosen dashboard.
  async save(ev) {
    ev.preventDefault();
    const dashboard = $('save-dashboard').value;
    const name = $('save-dashboard').selectedOptions[0]?.textContent;
    await busy('save-ok', 'save-error', async () => {
      const w = await this.api.call('create-widget', {dashboard, title: $('save-title').value.trim(),
        queries: [this.query], ...storedKind($('save-kind').value)});
      $('save-dialog').close();
      const box = $('explore-notice');
      box.replaceChildren(`Saved “${w.title}” to ${name}. `, el('a', {href: `#/d/${dashboard}`, id: 'explore-saved-link'}, 'Open the dashboard'));
      box.classList.add('notice');
      box.hidden = false;
    });
  }
}
