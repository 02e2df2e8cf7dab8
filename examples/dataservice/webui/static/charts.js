// charts.js: widgets drawn from query results, as plain DOM and SVG.
//
// A query result is {"data": [[keys, values], ...], "meta": {...}}, one per statement. The
// names of the keys and values come from the statement's text (describeQuery), since results
// carry none.

import {statements} from './query.js';

const SVG = 'http://www.w3.org/2000/svg';

// PALETTE holds the series colours, in order.
export const PALETTE = ['#2563eb', '#f59e0b', '#10b981', '#ef4444', '#8b5cf6', '#06b6d4',
  '#ec4899', '#84cc16', '#64748b', '#f97316'];

// Units of the metrics, for formatting values.
const METRIC_UNITS = {
  'traffic': 'bytes', 'client.traffic': 'bytes', 'server.traffic': 'bytes',
  'packets': 'packets', 'client.packets': 'packets', 'server.packets': 'packets',
  'records': 'count',
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

// formatValue writes a value for people: 1.2 MB, 34.5k, 0.25.
export function formatValue(v, unit = '') {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  const abs = Math.abs(v);
  const steps = unit === 'bytes' ? ['B', 'kB', 'MB', 'GB', 'TB', 'PB'] : ['', 'k', 'M', 'G', 'T', 'P'];
  let i = 0;
  let x = v;
  while (Math.abs(x) >= 1000 && i < steps.length - 1) {
    x /= 1000;
    i++;
  }
  let text;
  if (i === 0 && Number.isInteger(x)) text = String(x);
  else if (abs < 1 && i === 0) text = x.toPrecision(2);
  else text = x.toFixed(Math.abs(x) < 10 ? 2 : Math.abs(x) < 100 ? 1 : 0);
  const suffix = steps[i];
  if (unit === 'bytes') return `${text} ${suffix}`;
  return text + suffix;
}

// formatKey writes a key: a time as a clock time, anything else as text.
export function formatKey(name, k) {
  if (/^time/.test(name) && typeof k === 'number') return formatTime(k);
  return String(k);
}

// formatTime writes Unix seconds as local HH:MM (with the date when not today).
export function formatTime(t, withSeconds = false) {
  const d = new Date(t * 1000);
  const opts = {hour: '2-digit', minute: '2-digit', hour12: false};
  if (withSeconds) opts.second = '2-digit';
  const time = d.toLocaleTimeString([], opts);
  if (d.toDateString() === new Date().toDateString()) return time;
  return `${d.toLocaleDateString([], {month: 'short', day: 'numeric'})} ${time}`;
}

// render draws results in el for a widget of the kind: shapes come from describeQuery of its
// queries. Options: unit (when set) overrides the values' own units; tooltip is the element
// that shows a time series' values under the pointer; onZoom(since, until) receives the span
// dragged across a time series; onPick({statement, keys: [{name, value}]}) a bar, slice, table
// row or legend entry clicked (or taken with Enter). el is emptied first.
export function render(el, kind, results, shapes, {unit = '', tooltip, onZoom, onPick} = {}) {
  el.replaceChildren();
  const sets = results.map((r, i) => ({
    index: i,
    rows: r.data || [],
    shape: shapes[i] || {keys: [], values: []},
  }));
  for (const s of sets) {
    s.keyName = (j) => s.shape.keys[j] ?? `key ${j + 1}`;
    s.valueName = (j) => s.shape.values[j]?.name ?? `value ${j + 1}`;
    s.unit = (j) => unit || s.shape.values[j]?.unit || '';
    s.keysOf = (keys) => keys.map((value, j) => ({name: s.keyName(j), value}));
  }
  if (!sets.length || sets.every((s) => !s.rows.length)) {
    el.append(div('no-data', 'No data in this period.'));
    return;
  }
  const pick = onPick ? (statement, keys) => onPick({statement, keys}) : null;
  switch (kind) {
    case 'number': return drawNumber(el, sets);
    case 'table': return drawTable(el, sets, pick);
    case 'timeseries': return drawTimeSeries(el, sets, tooltip, pick, onZoom);
    case 'bar': return drawBars(el, sets, pick);
    case 'pie': return drawPie(el, sets, pick);
  }
  el.append(div('no-data', `Unknown kind ${kind}.`));
}

// pickable makes e open the drill-down of keys: by click, or by Enter or Space when focused.
function pickable(e, pick, statement, keys, label) {
  if (!pick || !keys.length || keys.every((k) => /^time/i.test(k.name))) return;
  e.classList.add('pick');
  e.setAttribute('tabindex', '0');
  e.setAttribute('role', 'button');
  e.setAttribute('aria-label', `Explore ${label}`);
  e.addEventListener('click', () => pick(statement, keys));
  e.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Enter' && ev.key !== ' ') return;
    ev.preventDefault();
    pick(statement, keys);
  });
}

// formatDuration writes seconds as the largest whole unit: "6 hours", "90 s".
export function formatDuration(s) {
  if (s && s % 86400 === 0) return s === 86400 ? '1 day' : `${s / 86400} days`;
  if (s && s % 3600 === 0) return s === 3600 ? '1 hour' : `${s / 3600} hours`;
  if (s && s % 60 === 0) return s === 60 ? '1 minute' : `${s / 60} minutes`;
  return `${s} s`;
}

function drawNumber(el, sets) {
  const first = sets[0];
  const row = first.rows[0];
  const big = div('big-value', formatValue(row[1][0], first.unit(0)));
  big.title = String(row[1][0]);
  el.append(big, div('big-label', first.valueName(0)));
  // Further values (of this statement, then of the others) in small type.
  const more = [];
  row[1].slice(1).forEach((v, j) => more.push([first.valueName(j + 1), formatValue(v, first.unit(j + 1))]));
  for (const s of sets.slice(1)) {
    if (s.rows[0]) more.push([s.valueName(0), formatValue(s.rows[0][1][0], s.unit(0))]);
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

function drawTable(el, sets, pick) {
  for (const s of sets) {
    const wrap = div('table-wrap');
    const table = document.createElement('table');
    table.className = 'data';
    const head = table.createTHead().insertRow();
    const nk = s.rows[0]?.[0].length ?? 0;
    const nv = s.rows[0]?.[1].length ?? 0;
    for (let j = 0; j < nk; j++) cell(head, 'th', s.keyName(j));
    for (let j = 0; j < nv; j++) cell(head, 'th', s.valueName(j), 'num');
    const body = table.createTBody();
    for (const [keys, values] of s.rows.slice(0, 500)) {
      const tr = body.insertRow();
      keys.forEach((k, j) => cell(tr, 'td', formatKey(s.keyName(j), k)));
      pickable(tr, pick, s.index, s.keysOf(keys), keys.join(' · '));
      values.forEach((v, j) => cell(tr, 'td', formatValue(v, s.unit(j)), 'num'));
    }
    wrap.append(table);
    el.append(wrap);
  }
}

// seriesOf turns the results into lines over time: with keys besides time, one line per key
// combination (of the first value); without, one line per value.
function seriesOf(sets) {
  const series = [];
  for (const s of sets) {
    const ti = Math.max(0, s.shape.keys.findIndex((k) => /^time/i.test(k)));
    const others = (keys) => keys.filter((_, j) => j !== ti);
    if (s.rows.length && others(s.rows[0][0]).length) {
      const byName = new Map();
      for (const [keys, values] of s.rows) {
        const name = others(keys).join(' · ');
        if (!byName.has(name)) {
          byName.set(name, {name, unit: s.unit(0), points: [], statement: s.index,
            keys: s.keysOf(keys).filter((_, j) => j !== ti)});
        }
        byName.get(name).points.push([keys[ti], values[0]]);
      }
      // Keep the ten largest lines.
      const total = (l) => l.points.reduce((a, p) => a + (p[1] || 0), 0);
      series.push(...[...byName.values()].sort((a, b) => total(b) - total(a)).slice(0, 10));
    } else {
      const nv = s.rows[0]?.[1].length ?? 0;
      for (let j = 0; j < nv; j++) {
        series.push({name: s.valueName(j), unit: s.unit(j), points: s.rows.map(([k, v]) => [k[ti], v[j]]), keys: []});
      }
    }
  }
  return series;
}

function drawTimeSeries(el, sets, tooltip, pick, onZoom) {
  if (!sets.some((s) => s.shape.keys.some((k) => /^time/i.test(k)))) {
    el.append(div('no-data', 'A time series needs a time(N) key: add BY time(60).'));
    return;
  }
  const series = seriesOf(sets);
  const W = Math.max(280, el.clientWidth || 560);
  const H = 220;
  const pad = {l: 56, r: 12, t: 10, b: 24};
  const all = series.flatMap((s) => s.points);
  const ts = all.map((p) => p[0]);
  let t0 = Math.min(...ts);
  let t1 = Math.max(...ts);
  if (t0 === t1) { t0 -= 60; t1 += 60; }
  const vmax = niceMax(Math.max(0, ...all.map((p) => p[1] ?? 0)));
  const x = (t) => pad.l + (t - t0) / (t1 - t0) * (W - pad.l - pad.r);
  const y = (v) => pad.t + (1 - v / vmax) * (H - pad.t - pad.b);
  const svg = svgEl('svg', {class: 'chart', viewBox: `0 0 ${W} ${H}`, height: H, role: 'img'});
  const unit = series[0]?.unit || '';
  for (let i = 0; i <= 4; i++) {
    const v = vmax * i / 4;
    svg.append(svgEl('line', {class: 'grid', x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v)}));
    svg.append(svgText(formatValue(v, unit), {x: pad.l - 8, y: y(v) + 4, 'text-anchor': 'end'}));
  }
  const ticks = Math.max(2, Math.min(6, Math.floor((W - pad.l) / 90)));
  for (let i = 0; i <= ticks; i++) {
    const t = t0 + (t1 - t0) * i / ticks;
    const anchor = i === 0 ? 'start' : i === ticks ? 'end' : 'middle';
    svg.append(svgText(formatTime(t), {x: x(t), y: H - 6, 'text-anchor': anchor}));
  }
  svg.append(svgEl('line', {class: 'axis', x1: pad.l, x2: W - pad.r, y1: H - pad.b, y2: H - pad.b}));
  series.forEach((s, i) => {
    const colour = PALETTE[i % PALETTE.length];
    const pts = s.points.filter((p) => p[1] !== null).sort((a, b) => a[0] - b[0]);
    if (!pts.length) return;
    const d = pts.map((p, j) => `${j ? 'L' : 'M'}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join('');
    if (series.length === 1) {
      const area = `${d}L${x(pts.at(-1)[0]).toFixed(1)},${y(0)}L${x(pts[0][0]).toFixed(1)},${y(0)}Z`;
      svg.append(svgEl('path', {class: 'area', d: area, fill: colour}));
    }
    svg.append(svgEl('path', {class: 'series', d, stroke: colour, 'data-name': s.name}));
  });
  const cursor = svgEl('line', {class: 'cursor', y1: pad.t, y2: H - pad.b, visibility: 'hidden'});
  svg.append(cursor);
  el.append(svg, legend(series, pick));
  const frame = {x, t0, t1, W, H, pad};
  if (tooltip) hover(svg, cursor, series, frame, tooltip);
  if (onZoom) zoom(svg, frame, onZoom);
}

// zoom lets the pointer drag across the plot: the span dragged, in whole seconds, goes to
// onZoom(since, until).
function zoom(svg, {t0, t1, W, H, pad}, onZoom) {
  const band = svgEl('rect', {class: 'zoom-band', y: pad.t, height: H - pad.t - pad.b, width: 0, visibility: 'hidden'});
  svg.append(band);
  svg.classList.add('zoomable');
  const px = (ev) => {
    const box = svg.getBoundingClientRect();
    return Math.max(pad.l, Math.min(W - pad.r, (ev.clientX - box.left) * W / box.width));
  };
  const time = (p) => t0 + (p - pad.l) / (W - pad.l - pad.r) * (t1 - t0);
  let from = null;
  svg.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0) return;
    from = px(ev);
    svg.setPointerCapture?.(ev.pointerId);
    ev.preventDefault();
  });
  svg.addEventListener('pointermove', (ev) => {
    if (from === null) return;
    const to = px(ev);
    band.setAttribute('x', Math.min(from, to));
    band.setAttribute('width', Math.abs(to - from));
    band.setAttribute('visibility', 'visible');
  });
  svg.addEventListener('pointerup', (ev) => {
    if (from === null) return;
    const to = px(ev);
    const a = Math.min(from, to);
    const b = Math.max(from, to);
    from = null;
    band.setAttribute('visibility', 'hidden');
    if (b - a < 4) return; // a click, not a drag
    onZoom(Math.floor(time(a)), Math.ceil(time(b)));
  });
}

// hover shows the values at the time under the pointer.
function hover(svg, cursor, series, {x, t0, t1, W, pad}, tip) {
  const times = [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
  svg.addEventListener('pointermove', (ev) => {
    const box = svg.getBoundingClientRect();
    const px = (ev.clientX - box.left) * W / box.width;
    const want = t0 + (px - pad.l) / (W - pad.l - pad.r) * (t1 - t0);
    let t = times[0];
    for (const c of times) if (Math.abs(c - want) < Math.abs(t - want)) t = c;
    cursor.setAttribute('x1', x(t));
    cursor.setAttribute('x2', x(t));
    cursor.setAttribute('visibility', 'visible');
    const lines = [div('', formatTime(t, true))];
    series.slice(0, 8).forEach((s, i) => {
      const p = s.points.find((q) => q[0] === t);
      if (!p) return;
      const line = div('');
      const swatch = document.createElement('i');
      swatch.style.background = PALETTE[i % PALETTE.length];
      line.append(swatch, `${s.name}: ${formatValue(p[1], s.unit)}`);
      lines.push(line);
    });
    tip.replaceChildren(...lines);
    tip.hidden = false;
    tip.style.left = `${Math.min(ev.clientX + 14, innerWidth - tip.offsetWidth - 8)}px`;
    tip.style.top = `${ev.clientY + 14}px`;
  });
  svg.addEventListener('pointerleave', () => {
    cursor.setAttribute('visibility', 'hidden');
    tip.hidden = true;
  });
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

function drawBars(el, sets, pick) {
  const {unit, items, statement} = slicesOf(sets);
  const bars = items.slice(0, 12);
  const W = Math.max(280, el.clientWidth || 560);
  const rowH = 24;
  const labelW = Math.min(170, W * 0.35);
  const valueW = 72;
  const H = bars.length * rowH + 4;
  const max = Math.max(...bars.map((b) => b.value), 0) || 1;
  const svg = svgEl('svg', {class: 'chart', viewBox: `0 0 ${W} ${H}`, height: H, role: 'img'});
  bars.forEach((b, i) => {
    const y = i * rowH + 2;
    const w = Math.max(1, (W - labelW - valueW) * Math.max(0, b.value) / max);
    const g = svgEl('g', {class: 'bar-row'});
    const label = svgText(truncate(b.name, 24), {class: 'bar-label', x: labelW - 8, y: y + 15, 'text-anchor': 'end'});
    label.append(svgEl('title', {}, b.name));
    g.append(svgEl('rect', {class: 'bar-hit', x: 0, y, width: W, height: rowH}), label);
    g.append(svgEl('rect', {class: 'bar', x: labelW, y: y + 3, width: w, height: rowH - 8, rx: 3,
      fill: PALETTE[0], 'data-value': b.value}));
    g.append(svgText(formatValue(b.value, unit), {x: labelW + w + 6, y: y + 15}));
    pickable(g, pick, statement, b.keys, b.name);
    svg.append(g);
  });
  el.append(svg);
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
  const svg = svgEl('svg', {class: 'chart', viewBox: '-95 -95 190 190', height: 190, role: 'img'});
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
}

// arc is the path of a ring slice from angle a to b.
function arc(a, b, R, r) {
  const large = b - a > Math.PI ? 1 : 0;
  const p = (rad, ang) => `${(rad * Math.cos(ang)).toFixed(2)},${(rad * Math.sin(ang)).toFixed(2)}`;
  return `M${p(R, a)}A${R},${R} 0 ${large} 1 ${p(R, b)}L${p(r, b)}A${r},${r} 0 ${large} 0 ${p(r, a)}Z`;
}

// niceMax rounds a maximum up to 1, 2, 2.5 or 5 times a power of ten.
function niceMax(v) {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

// legend lists entries ({name, statement, keys}), each in its series' colour.
function legend(entries, pick) {
  const box = div('legend');
  entries.forEach((e, i) => {
    const item = document.createElement('span');
    const swatch = document.createElement('i');
    swatch.style.background = PALETTE[i % PALETTE.length];
    item.append(swatch, e.name);
    pickable(item, pick, e.statement, e.keys || [], e.name);
    box.append(item);
  });
  return box;
}

function truncate(s, n) {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

function div(cls, text) {
  const d = document.createElement('div');
  if (cls) d.className = cls;
  if (text !== undefined) d.textContent = text;
  return d;
}

function cell(row, tag, text, cls) {
  const c = document.createElement(tag);
  c.textContent = text;
  if (cls) c.className = cls;
  row.append(c);
}

function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function svgText(text, attrs) {
  return svgEl('text', attrs, text);
}
