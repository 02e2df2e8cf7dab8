// charts.js: widgets drawn from query results, as plain DOM and SVG.
//
// A query result is {"data": [[keys, values], ...], "meta": {...}}, one per statement. The
// names of the keys and values come from the statement's text (describeQuery), since results
// carry none.

import {PALETTE, cell, div, legend, pickable, svgEl, svgText, truncate} from './draw.js';
import {formatKey, formatValue} from './format.js';
import {statements} from './query.js';
import {drawSankey} from './sankey.js';
import {drawTimeSeries} from './timeseries.js';

export {PALETTE} from './draw.js';
export {formatDateTime, formatDuration, formatKey, formatTime, formatValue} from './format.js';

// Units of the metrics, for formatting values.
const METRIC_UNITS = {
  'traffic': 'bytes', 'client.traffic': 'bytes', 'server.traffic': 'bytes',
  'packets': 'packets', 'client.packets': 'packets', 'server.packets': 'packets',
  'records': 'count',
  'rtt': 'seconds', 'client.rtt': 'seconds', 'server.rtt': 'seconds',
  'ct': 'seconds', 'srt': 'seconds', 'dtt': 'seconds', 'eurt': 'seconds',
  'retrans': 'count', 'client.retrans': 'count', 'server.retrans': 'count', 'resets': 'count',
  'client.zero_windows': 'count', 'server.zero_windows': 'count',
};

// describeQuery returns, for each statement of a query expression, the names of its keys and
// values and each value's unit: [{keys: ["time(60)"], values: [{name, unit}]}].
export function describeQuery(expr) {
  return statements(expr).map((st) => describeStatement(expr, st.parts));
}

function describeStatement(expr, parts) {
  const by = parts.find((p) => p.clause === 'by');
  const values = splitList(parts[0].tokens).map((ts) => {
    const as = ts.findIndex((t) => /^as$/i.test(t.text));
    const expression = as >= 0 ? ts.slice(0, as) : ts;
    if (expression[0] && /^total$/i.test(expression[0].text)) expression.shift();
    const name = as >= 0 && ts[as + 1] ? unquote(ts[as + 1].text) : source(expr, expression);
    return {name, unit: unitOf(expression)};
  });
  const keys = by ? splitList(by.tokens).map((ts) => source(expr, ts).replace(/\s+/g, '')) : [];
  return {keys, values};
}

function splitList(tokens) {
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

function source(expr, tokens) {
  return tokens.length ? expr.slice(tokens[0].start, tokens.at(-1).end) : '';
}

function unquote(s) {
  return /^["']/.test(s) ? s.slice(1, -1) : s;
}

// unitOf is the unit of a value expression: its metrics' unit when they all have the same one
// and nothing divides them, else none.
function unitOf(tokens) {
  if (tokens.some((t) => t.text === '/')) return '';
  const units = new Set(tokens.filter((t) => METRIC_UNITS[t.text]).map((t) => METRIC_UNITS[t.text]));
  return units.size === 1 ? [...units][0] : '';
}
// render draws results in el for a widget of the kind: shapes come from describeQuery of its
// queries. Options: unit (when set) overrides the values' own units; tooltip is the element
// that shows a time series' values under the pointer; onZoom(since, until) receives the span
// dragged across a time series; win ({since, until}, Unix seconds) is the period asked, which a
// time series' axis spans and a number's rates divide by; hidden is the set of series names a
// time series' legend turned off and sort the order of a table's rows (both kept by the caller
// across redrawings); previous ({results, shift, label}) the answer of the period shift seconds
// earlier, which a time series overlays as a dashed total named label; onPick({statement, keys: [{name, value}]}) a bar, slice, table
// row or legend entry clicked (or taken with Enter). el is emptied first; when the keyboard focus
// was on one of its entries, the same entry of the new drawing takes it (live widgets redraw
// every few seconds, and a keyboard user must not be thrown out of the chart each time).
export function render(el, kind, results, shapes, opts = {}) {
  const kept = el.contains(document.activeElement) ? document.activeElement.dataset?.pick : undefined;
  if (opts.tooltip && el.matches(':hover')) opts.tooltip.hidden = true; // its values are gone
  drawKind(el, kind, results, shapes, opts);
  if (kept === undefined) return;
  const again = [...el.querySelectorAll('.pick')].find((e) => e.dataset.pick === kept);
  if (again) again.focus();
}

// setsOf pairs each result with its statement's shape and the names and units read from it.
function setsOf(results, shapes, unit) {
  const sets = results.map((r, i) => ({
    index: i,
    rows: r.data || [],
    // groups: how many groups the service had before TOP cut them (meta.groups); 0 when it
    // did not cut.
    groups: r.meta?.groups || 0,
    shape: shapes[i] || {keys: [], values: []},
  }));
  for (const s of sets) {
    s.keyName = (j) => s.shape.keys[j] ?? `key ${j + 1}`;
    s.valueName = (j) => s.shape.values[j]?.name ?? `value ${j + 1}`;
    s.unit = (j) => unit || s.shape.values[j]?.unit || '';
    s.keysOf = (keys) => keys.map((value, j) => ({name: s.keyName(j), value}));
  }
  return sets;
}

function drawKind(el, kind, results, shapes, {unit = '', tooltip, onZoom, onPick, win, hidden, sort, previous} = {}) {
  el.replaceChildren();
  const sets = setsOf(results, shapes, unit);
  if (!sets.length || sets.every((s) => !s.rows.length)) {
    el.append(div('no-data', 'No data in this period.'));
    return;
  }
  const pick = onPick ? (statement, keys) => onPick({statement, keys}) : null;
  switch (kind) {
    case 'number': return drawNumber(el, sets, win);
    case 'table': return drawTable(el, sets, pick, sort);
    case 'timeseries': return drawTimeSeries(el, sets, {tooltip, pick, onZoom, win, hidden,
      previous: previous && {sets: setsOf(previous.results, shapes, unit), shift: previous.shift, label: previous.label}});
    case 'bar': return drawBars(el, sets, pick);
    case 'pie': return drawPie(el, sets, pick);
    case 'sankey': return drawSankey(el, sets, pick);
  }
  el.append(div('no-data', `Unknown kind ${kind}.`));
}
// toCSV writes results as CSV for a spreadsheet: a column per key and value (named from the
// query's text, as the widget shows them), raw numbers, one row per group; with several
// statements a first column "statement" numbers them. A text that begins with =, +, -, @, a
// tab or CR, which a spreadsheet takes for a formula (a server name learned from the network
// may), is written after a single quote (OWASP's CSV injection); numbers, negative ones
// too, stay numbers.
export function toCSV(results, shapes) {
  const quote = (v) => {
    let t = v === null || v === undefined ? '' : String(v);
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(t)) t = `'${t}`;
    return /[",\n\r]/.test(t) ? `"${t.replaceAll('"', '""')}"` : t;
  };
  const many = results.length > 1;
  const lines = [];
  results.forEach((r, i) => {
    const shape = shapes[i] || {keys: [], values: []};
    const rows = r.data || [];
    const nk = rows[0]?.[0].length ?? shape.keys.length;
    const nv = rows[0]?.[1].length ?? shape.values.length;
    const head = [];
    for (let j = 0; j < nk; j++) head.push(shape.keys[j] ?? `key ${j + 1}`);
    for (let j = 0; j < nv; j++) head.push(shape.values[j]?.name ?? `value ${j + 1}`);
    if (many) head.unshift('statement');
    if (i === 0 || many) lines.push(head.map(quote).join(','));
    for (const [keys, values] of rows) {
      const cells = [...keys, ...values.map((v) => (Number.isNaN(v) ? '' : v))];
      if (many) cells.unshift(i + 1);
      lines.push(cells.map(quote).join(','));
    }
  });
  return lines.join('\r\n') + '\r\n';
}

// ADDITIVE are the units whose values of several rows add up to a total.
const ADDITIVE = new Set(['bytes', 'packets', 'count']);

// numberOf reads a statement's answer as one number: its only row; the sum of its rows when
// they are parts of a whole (bytes, packets, records by some key); else the first row, named.
// With a time key, the rate of each whole bucket gives the peak and 95th percentile.
function numberOf(s, j, win) {
  const unit = s.unit(j);
  const rows = s.rows;
  const out = {unit, name: s.valueName(j)};
  if (rows.length <= 1 || !ADDITIVE.has(unit)) {
    out.value = rows[0]?.[1][j] ?? null;
    if (rows.length > 1) out.name += ` · ${rows[0][0].map((k, i) => formatKey(s.keyName(i), k)).join(' · ')} (first of ${rows.length.toLocaleString('en')} rows)`;
  } else {
    out.value = rows.reduce((a, r) => a + (r[1][j] || 0), 0);
  }
  const ti = s.shape.keys.findIndex((k) => /^time\(\d+\)$/i.test(k));
  const rateUnit = {bytes: 'bit/s', packets: 'packets/s', count: 'records/s'}[unit];
  const per = unit === 'bytes' ? 8 : 1;
  if (rateUnit && win && win.until > win.since) {
    out.rate = {unit: rateUnit, avg: out.value * per / (win.until - win.since)};
    if (ti >= 0) {
      const bucket = Number(/\((\d+)\)/.exec(s.shape.keys[ti])[1]);
      const sums = new Map();
      for (const [keys, values] of rows) sums.set(keys[ti] - bucket, (sums.get(keys[ti] - bucket) || 0) + (values[j] || 0));
      const rates = [...sums].filter(([t]) => t >= win.since && t + bucket <= win.until + 1)
        .map(([, v]) => v * per / bucket).sort((a, b) => a - b);
      if (rates.length) {
        out.rate.peak = rates.at(-1);
        out.rate.p95 = rates[Math.min(rates.length - 1, Math.ceil(rates.length * 0.95) - 1)];
      }
    }
  }
  return out;
}

function drawNumber(el, sets, win) {
  const first = sets[0];
  const n = numberOf(first, 0, win);
  const big = div('big-value', formatValue(n.value, n.unit));
  big.title = String(n.value);
  el.append(big, div('big-label', n.name));
  if (n.rate) {
    const r = div('rates');
    const part = (label, v) => {
      if (v === undefined) return;
      const item = document.createElement('span');
      const b = document.createElement('b');
      b.textContent = formatValue(v, n.rate.unit);
      item.append(`${label} `, b);
      item.dataset.rate = label;
      r.append(item);
    };
    part('avg', n.rate.avg);
    part('peak', n.rate.peak);
    part('95th', n.rate.p95);
    el.append(r);
  }
  // Further values (of this statement, then of the others) in small type.
  const more = [];
  const nv = first.rows[0]?.[1].length ?? 0;
  for (let j = 1; j < nv; j++) {
    const m = numberOf(first, j, null);
    more.push([m.name, formatValue(m.value, m.unit)]);
  }
  for (const s of sets.slice(1)) {
    if (s.rows[0]) {
      const m = numberOf(s, 0, null);
      more.push([m.name, formatValue(m.value, m.unit)]);
    }
  }
  if (more.length) {
    const box = div('more-values');
    for (const [name, text] of more.slice(0, 4)) {
      const item = document.createElement('span');
      const b = document.createElement('b');
      b.textContent = text;
      item.append(b, ` ${name}`);
      box.append(item);
    }
    el.append(box);
  }
}

const TABLE_ROWS = 500; // rows a table shows; the count of the rest is said

// drawTable draws a table per statement: a column per key and value, and the share of the
// whole of the first value when its rows are parts of one (bytes, packets, records). A click on
// a column's head sorts by it (again: the other way); sort ({}: kept by the caller across
// redrawings) holds the column and direction per statement.
function drawTable(el, sets, pick, sort = {}) {
  for (const s of sets) {
    const wrap = div('table-wrap');
    const table = document.createElement('table');
    table.className = 'data';
    const nk = s.rows[0]?.[0].length ?? 0;
    const nv = s.rows[0]?.[1].length ?? 0;
    const share = nv > 0 && ADDITIVE.has(s.unit(0));
    const whole = share ? s.rows.reduce((a, r) => a + (r[1][0] || 0), 0) : 0;
    const columns = [];
    for (let j = 0; j < nk; j++) columns.push({name: s.keyName(j), get: (r) => r[0][j]});
    for (let j = 0; j < nv; j++) columns.push({name: s.valueName(j), get: (r) => r[1][j], num: true});
    if (share) columns.push({name: 'Share', title: `Each row's part of the ${s.valueName(0)} of the rows answered`, get: (r) => r[1][0], num: true, share: true});
    const order = sort[s.index];
    const rows = s.rows.slice();
    if (order) {
      const col = columns[order.column];
      const dir = order.desc ? -1 : 1;
      rows.sort((a, b) => {
        const x = col.get(a);
        const y = col.get(b);
        if (typeof x === 'number' && typeof y === 'number') return (x - y) * dir;
        return String(x).localeCompare(String(y), undefined, {numeric: true}) * dir;
      });
    }
    const head = table.createTHead().insertRow();
    columns.forEach((c, i) => {
      const th = document.createElement('th');
      th.scope = 'col';
      if (c.num) th.className = 'num';
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'sort';
      b.textContent = c.name;
      if (c.title) b.title = c.title;
      if (order?.column === i) {
        th.setAttribute('aria-sort', order.desc ? 'descending' : 'ascending');
        b.dataset.dir = order.desc ? '▼' : '▲';
      }
      b.addEventListener('click', () => {
        // Values sort largest first, names A to Z; a second click turns the order round.
        sort[s.index] = order?.column === i ? {column: i, desc: !order.desc} : {column: i, desc: Boolean(c.num)};
        el.replaceChildren();
        drawTable(el, sets, pick, sort);
        el.querySelectorAll('table.data')[sets.indexOf(s)]?.querySelectorAll('th button.sort')[i]?.focus();
      });
      th.append(b);
      head.append(th);
    });
    const body = table.createTBody();
    for (const r of rows.slice(0, TABLE_ROWS)) {
      const [keys, values] = r;
      const tr = body.insertRow();
      keys.forEach((k, j) => cell(tr, 'td', formatKey(s.keyName(j), k)));
      pickable(tr, pick, s.index, s.keysOf(keys), keys.map((k, j) => formatKey(s.keyName(j), k)).join(' · '));
      values.forEach((v, j) => cell(tr, 'td', formatValue(v, s.unit(j)), 'num'));
      if (share) cell(tr, 'td', whole ? `${((values[0] || 0) / whole * 100).toFixed(1)} %` : '–', 'num share');
    }
    wrap.append(table);
    el.append(wrap);
    const note = cutNote(Math.min(rows.length, TABLE_ROWS), Math.max(rows.length, s.groups), 'rows');
    if (note) el.append(note);
  }
}

// slicesOf gives the rows of the first result as labelled values of its first value.
function slicesOf(sets) {
  const s = sets[0];
  return {
    unit: s.unit(0),
    statement: s.index,
    items: s.rows.map(([keys, values]) => ({
      name: keys.length ? keys.map((k, j) => formatKey(s.keyName(j), k)).join(' · ') : s.valueName(0),
      value: values[0] ?? 0,
      keys: s.keysOf(keys),
    })),
  };
}

// cutNote says that shown of all things are drawn ("Showing 12 of 214,861 rows."), or is
// null when nothing was cut.
export function cutNote(shown, all, things) {
  if (all <= shown) return null;
  return div('cut-note', `Showing ${shown.toLocaleString('en')} of ${all.toLocaleString('en')} ${things}.`);
}

function drawBars(el, sets, pick) {
  const {unit, items, statement} = slicesOf(sets);
  const bars = items.slice(0, 12);
  const note = cutNote(bars.length, Math.max(items.length, sets[0].groups), 'bars');
  const W = Math.max(280, el.clientWidth || 560);
  const rowH = 24;
  const labelW = Math.min(170, W * 0.35);
  const labelChars = Math.min(24, Math.floor((labelW - 8) / 6.6)); // of 11 px text: none past the left edge
  const valueW = 72;
  const H = bars.length * rowH + 4;
  const max = Math.max(...bars.map((b) => b.value), 0) || 1;
  const svg = svgEl('svg', {class: 'chart', viewBox: `0 0 ${W} ${H}`, height: H, role: pick ? 'group' : 'img',
    'aria-label': `Bar chart of ${sets[0].valueName(0)}: ${bars.map((b) => `${b.name} ${formatValue(b.value, unit)}`).join(', ')}`});
  bars.forEach((b, i) => {
    const y = i * rowH + 2;
    const w = Math.max(1, (W - labelW - valueW) * Math.max(0, b.value) / max);
    const g = svgEl('g', {class: 'bar-row'});
    const label = svgText(truncate(b.name, labelChars), {class: 'bar-label', x: labelW - 8, y: y + 15, 'text-anchor': 'end'});
    label.append(svgEl('title', {}, b.name));
    g.append(svgEl('rect', {class: 'bar-hit', x: 0, y, width: W, height: rowH}), label);
    g.append(svgEl('rect', {class: 'bar', x: labelW, y: y + 3, width: w, height: rowH - 8, rx: 3,
      fill: PALETTE[0], 'data-value': b.value}));
    g.append(svgText(formatValue(b.value, unit), {x: labelW + w + 6, y: y + 15}));
    pickable(g, pick, statement, b.keys, b.name);
    svg.append(g);
  });
  el.append(svg);
  if (note) el.append(note);
}

function drawPie(el, sets, pick) {
  const {unit, items, statement} = slicesOf(sets);
  let slices = items.filter((s) => s.value > 0);
  if (slices.length > 8) {
    const rest = slices.slice(7).reduce((a, s) => a + s.value, 0);
    slices = [...slices.slice(0, 7), {name: 'other', value: rest, keys: []}];
  }
  const total = slices.reduce((a, s) => a + s.value, 0);
  if (!total) {
    el.append(div('no-data', 'Nothing to divide: every value is zero.'));
    return;
  }
  const R = 90;
  const r = 56;
  const svg = svgEl('svg', {class: 'chart', viewBox: '-95 -95 190 190', height: 190, role: pick ? 'group' : 'img',
    'aria-label': `Pie chart of ${sets[0].valueName(0)}, ${formatValue(total, unit)} in all`});
  let a = -Math.PI / 2;
  slices.forEach((s, i) => {
    const share = s.value / total;
    const b = a + share * 2 * Math.PI;
    const colour = PALETTE[i % PALETTE.length];
    const path = share >= 0.9999
      ? `M${-R},0A${R},${R} 0 1 1 ${R},0A${R},${R} 0 1 1 ${-R},0ZM${-r},0A${r},${r} 0 1 0 ${r},0A${r},${r} 0 1 0 ${-r},0Z`
      : arc(a, b, R, r);
    const slice = svgEl('path', {class: 'slice', d: path, fill: colour, 'fill-rule': 'evenodd', 'data-value': s.value});
    slice.append(svgEl('title', {}, `${s.name}: ${formatValue(s.value, unit)} (${(share * 100).toFixed(1)} %)`));
    pickable(slice, pick, statement, s.keys, s.name);
    svg.append(slice);
    a = b;
  });
  svg.append(svgText(formatValue(total, unit), {class: 'center-value', x: 0, y: 6, 'text-anchor': 'middle'}));
  const wrap = div('pie-wrap');
  wrap.append(svg, legend(slices.map((s) => ({...s, statement, name: `${s.name} · ${(s.value / total * 100).toFixed(1)} %`})), pick));
  el.append(wrap);
  // Shares are of what the answer holds: say so when the query's TOP left groups out.
  const note = cutNote(items.length, sets[0].groups, 'groups: shares are of these');
  if (note) el.append(note);
}

// arc is the path of a ring slice from angle a to b.
function arc(a, b, R, r) {
  const large = b - a > Math.PI ? 1 : 0;
  const p = (rad, ang) => `${(rad * Math.cos(ang)).toFixed(2)},${(rad * Math.sin(ang)).toFixed(2)}`;
  return `M${p(R, a)}A${R},${R} 0 ${large} 1 ${p(R, b)}L${p(r, b)}A${r},${r} 0 ${large} 0 ${p(r, a)}Z`;
}
