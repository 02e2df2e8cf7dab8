// timeseries.js: the time series chart. Volumes become rates per second of each bucket (bytes
// as bit/s, packets as packets/s, records as records/s); the time axis spans the period asked,
// with ticks on round times; buckets the period only partly covers are left out, and missing
// buckets count as zero between the first and last answered ones (for volumes; a response time
// without samples is a gap). A volume by a key is drawn as stacked areas of the largest nine
// keys and "Other", a response time as lines of the highest nine; values of different units get a panel
// each. The legend toggles series; the tooltip gives the values under the pointer with units;
// dragging across zooms.

import {PALETTE, div, pickable, svgEl, svgText} from './draw.js';
import {formatBucket, formatKey, formatTick, formatValue} from './format.js';

const TOP = 9; // keys drawn on their own; the rest add up to "Other"

// markers are the times alerts fired ({t: Unix seconds, label}), drawn as vertical lines on
// every time series; alerts.js sets them.
let markers = [];

// setMarkers sets the times alerts fired, drawn from the next chart on.
export function setMarkers(list) {
  markers = list;
}
const RATE_UNITS = {bytes: 'bit/s', packets: 'packets/s', count: 'records/s'};
// SUMMED are the units whose series add up (stacked, "Other", a missing bucket is zero); the
// others (response times, ratios) are drawn as lines with gaps where a bucket has no value.
const SUMMED = new Set([...Object.keys(RATE_UNITS), ...Object.values(RATE_UNITS)]);
const TICK_STEPS = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
  172800, 604800, 1209600];

// niceStep rounds a step up to 1, 2 or 5 times a power of ten (1 for nothing).
function niceStep(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5]) if (v <= m * p * (1 + 1e-9)) return m * p;
  return 10 * p;
}

// bucketOf reads N from a time(N) key name.
function bucketOf(name) {
  const m = /^time\((\d+)\)$/i.exec(name);
  return m ? Number(m[1]) : 60;
}

// rate turns a bucket's volume into a rate: {unit, scale}.
function rate(unit, bucket) {
  const to = RATE_UNITS[unit];
  if (!to) return {unit, scale: 1};
  return {unit: to, scale: (unit === 'bytes' ? 8 : 1) / bucket};
}

// seriesOf turns the results into series over time, in rates: with keys besides time, one per
// key combination of the first value (the largest TOP, then "Other", stacked); without, one per
// value. Each series: {name, unit, bucket, points: Map(start -> v), keys, statement, stacked};
// the service's time(N) point T covers [T-N, T), and a series keeps it by its start T-N.
function seriesOf(sets) {
  const series = [];
  let cut = null; // series folded into Other
  let dropped = null; // groups the service's TOP left out
  for (const s of sets) {
    const ti = Math.max(0, s.shape.keys.findIndex((k) => /^time/i.test(k)));
    const bucket = bucketOf(s.shape.keys[ti] || '');
    const others = (keys) => keys.filter((_, j) => j !== ti);
    if (s.rows.length && others(s.rows[0][0]).length) {
      const {unit, scale} = rate(s.unit(0), bucket);
      const stacked = SUMMED.has(unit);
      const byName = new Map();
      for (const [keys, values] of s.rows) {
        const name = keys.map((k, j) => formatKey(s.keyName(j), k)).filter((_, j) => j !== ti).join(' · ');
        if (!byName.has(name)) {
          byName.set(name, {name, unit, bucket, points: new Map(), statement: s.index, stacked,
            keys: s.keysOf(keys).filter((_, j) => j !== ti), total: 0});
        }
        const line = byName.get(name);
        const v = values[0] === null ? null : values[0] * scale;
        const t = keys[ti] - bucket; // a point T covers [T-N, T): kept by its start
        line.points.set(t, stacked ? (line.points.get(t) || 0) + (v || 0) : v);
        line.total = stacked ? line.total + (v || 0) : Math.max(line.total, v ?? -Infinity);
      }
      const all = [...byName.values()].sort((a, b) => b.total - a.total);
      series.push(...all.slice(0, TOP));
      if (s.groups > all.length) dropped = {shown: all.length, of: s.groups};
      if (all.length > TOP && !stacked) {
        cut = {shown: TOP, of: all.length, highest: true};
      } else if (all.length > TOP) {
        const rest = {name: 'Other', unit, bucket, points: new Map(), statement: s.index, stacked: true, keys: [], other: true};
        for (const l of all.slice(TOP)) for (const [t, v] of l.points) rest.points.set(t, (rest.points.get(t) || 0) + v);
        series.push(rest);
        cut = {shown: TOP, of: all.length};
      }
    } else {
      const nv = s.rows[0]?.[1].length ?? 0;
      for (let j = 0; j < nv; j++) {
        const {unit, scale} = rate(s.unit(j), bucket);
        series.push({name: s.valueName(j), unit, bucket, keys: [],
          points: new Map(s.rows.map(([k, v]) => [k[ti] - bucket, v[j] === null ? null : v[j] * scale]))});
      }
    }
  }
  return {series, cut, dropped};
}

// runsOf splits a layer's points at the buckets without a value: a gap is never drawn as a
// line across it.
function runsOf(pts) {
  const runs = [[]];
  for (const p of pts) {
    if (p.v === null) runs.push([]);
    else runs.at(-1).push(p);
  }
  return runs.filter((r) => r.length);
}

// drawTimeSeries draws sets in el. win ({since, until}, Unix seconds) is the period asked;
// hidden names the series the legend turned off (kept by the caller between redrawings).
export function drawTimeSeries(el, sets, {tooltip, pick, onZoom, win, hidden = new Set(), previous}) {
  if (!sets.some((s) => s.shape.keys.some((k) => /^time/i.test(k)))) {
    el.append(div('no-data', 'A time series needs a time(N) key: add BY time(60).'));
    return;
  }
  const {series, cut, dropped} = seriesOf(sets);
  series.forEach((s, i) => { s.colour = s.other ? '#94a3b8' : PALETTE[i % PALETTE.length]; });
  const units = [...new Set(series.map((s) => s.unit))];
  // The previous period: the total of its series per unit, moved forward by shift.
  const before = new Map();
  const label = previous?.label || 'Previous period';
  if (previous) {
    for (const u of units) before.set(u, new Map()); // an empty answer: zero throughout
    for (const p of seriesOf(previous.sets).series) {
      const total = before.get(p.unit) || new Map();
      for (const [t, v] of p.points) total.set(t + previous.shift, (total.get(t + previous.shift) || 0) + (v || 0));
      before.set(p.unit, total);
    }
  }
  const redraw = () => {
    el.replaceChildren();
    for (const unit of units) {
      drawPanel(el, series.filter((s) => s.unit === unit), {tooltip, onZoom, win, hidden, before: before.get(unit), label});
    }
    el.append(legend(series, pick, hidden, redraw));
    if (cut?.highest) el.append(div('cut-note', `Showing the ${cut.shown} highest of ${cut.of.toLocaleString('en')} series.`));
    else if (cut) el.append(div('cut-note', `Showing the ${cut.shown} largest of ${cut.of.toLocaleString('en')} series; the rest as Other.`));
    if (dropped) el.append(div('cut-note', `The query's TOP kept ${dropped.shown.toLocaleString('en')} of ${dropped.of.toLocaleString('en')} series.`));
  };
  redraw();
}

// frameOf gives the span drawn: the period asked, or the answer's own span when there is none
// or when the answer lies outside it (a statement with its own SINCE and UNTIL).
function frameOf(series, win) {
  const ts = series.flatMap((s) => [...s.points.keys()]);
  const bucket = Math.max(...series.map((s) => s.bucket));
  let lo = Math.min(...ts);
  let hi = Math.max(...ts) + bucket;
  if (win && lo >= win.since - bucket && hi <= win.until + bucket) {
    lo = win.since;
    hi = win.until;
  }
  if (hi <= lo) hi = lo + 60;
  return {t0: lo, t1: hi, bucket};
}

// times lists the buckets drawn: from the first answered to the last, each step, without those
// the period only partly covers (unless nothing else is left).
function timesOf(series, {t0, t1, bucket}) {
  const ts = series.flatMap((s) => [...s.points.keys()]);
  if (!ts.length) return [];
  const first = Math.min(...ts);
  const last = Math.max(...ts);
  const all = [];
  for (let t = first; t <= last; t += bucket) all.push(t);
  const whole = all.filter((t) => t >= t0 && t + bucket <= t1 + 1);
  return whole.length ? whole : all;
}

function drawPanel(el, series, {tooltip, onZoom, win, hidden, before, label}) {
  const shown = series.filter((s) => !hidden.has(s.name));
  const frame = frameOf(series, win);
  const {t0, t1, bucket} = frame;
  const times = timesOf(series, frame);
  const unit = series[0]?.unit || '';
  const stacked = series.some((s) => s.stacked);
  const summed = SUMMED.has(unit);
  // Values at each time: stacked series add up from the bottom.
  const base = new Map(times.map((t) => [t, 0]));
  const layers = shown.map((s) => {
    const pts = times.map((t) => {
      // A missing bucket carried no traffic; an average without samples is a gap.
      const v = s.points.get(t) ?? (summed ? 0 : null);
      const lo = stacked ? base.get(t) : 0;
      const hi = lo + (v ?? 0);
      if (stacked) base.set(t, hi);
      return {t, v, lo, hi};
    });
    return {s, pts};
  });
  const prev = before ? times.map((t) => ({t, v: before.get(t) ?? 0})) : [];
  const top = Math.max(0, ...layers.flatMap((l) => l.pts.map((p) => p.hi)), ...prev.map((p) => p.v));
  const step = niceStep(top / 4);
  const vmax = Math.max(step, Math.ceil(top / step) * step);
  const W = Math.max(280, el.clientWidth || 560);
  const H = 220;
  const pad = {l: 78, r: 14, t: 14, b: 24};
  const x = (t) => pad.l + (t - t0) / (t1 - t0) * (W - pad.l - pad.r);
  const y = (v) => pad.t + (1 - v / vmax) * (H - pad.t - pad.b);
  const svg = svgEl('svg', {class: 'chart', viewBox: `0 0 ${W} ${H}`, height: H, role: 'img', 'data-unit': unit,
    'data-since': t0, 'data-until': t1, 'data-win': win ? `${win.since}-${win.until}` : '',
    'aria-label': `Time series in ${unit || 'values'} of ${series.map((s) => s.name).join(', ')} from ${formatBucket(t0)} to ${formatBucket(t1)}`});
  // Value axis: ticks on round values (1, 2 or 5 times a power of ten apart), each with its unit.
  for (let i = 0; i * step <= vmax + step / 1e6; i++) {
    const v = step * i;
    svg.append(svgEl('line', {class: 'grid', x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v)}));
    svg.append(svgText(formatValue(v, unit), {class: 'tick-y', x: pad.l - 8, y: y(v) + 4, 'text-anchor': 'end'}));
  }
  // Time axis: ticks on round times, spaced so that labels never meet.
  const plotW = W - pad.l - pad.r;
  const span = t1 - t0;
  const tickStep = TICK_STEPS.find((s) => span / s <= plotW / 90) || TICK_STEPS.at(-1);
  const offset = new Date(t0 * 1000).getTimezoneOffset() * 60; // round in local time
  let first = Math.ceil((t0 - offset) / tickStep) * tickStep + offset;
  if (tickStep === 604800 || tickStep === 1209600) { // weeks start on Monday
    const d = new Date(first * 1000);
    first += (((8 - d.getDay()) % 7) * 86400);
  }
  for (let t = first; t <= t1; t += tickStep) {
    const px = x(t);
    if (px < pad.l + 18 || px > W - pad.r - 18) continue;
    svg.append(svgEl('line', {class: 'grid tick-x-line', x1: px, x2: px, y1: H - pad.b, y2: H - pad.b + 4}));
    svg.append(svgText(formatTick(t, tickStep, span), {class: 'tick-x', x: px, y: H - 6, 'text-anchor': 'middle', 'data-t': t}));
  }
  svg.append(svgEl('line', {class: 'axis', x1: pad.l, x2: W - pad.r, y1: H - pad.b, y2: H - pad.b}));
  // Series: areas when stacked or alone, lines otherwise; a run of buckets is one path.
  for (const {s, pts} of layers) {
    const mid = (p) => x(p.t + bucket / 2).toFixed(1);
    for (const run of runsOf(pts)) {
      const line = run.map((p, j) => `${j ? 'L' : 'M'}${mid(p)},${y(p.hi).toFixed(1)}`).join('');
      if (stacked || shown.length === 1) {
        const under = run.slice().reverse().map((p) => `L${mid(p)},${y(p.lo).toFixed(1)}`).join('');
        svg.append(svgEl('path', {class: stacked ? 'area stacked' : 'area', d: `${line}${under}Z`, fill: s.colour}));
      }
      // A stacked layer's line is its area's top edge, unstroked: a thin layer on top would
      // otherwise paint the whole stack's outline in its colour.
      svg.append(svgEl('path', {class: stacked ? 'series stacked' : 'series', d: line, stroke: s.colour, 'data-name': s.name}));
    }
  }
  if (prev.length) {
    const d = prev.map((p, j) => `${j ? 'L' : 'M'}${x(p.t + bucket / 2).toFixed(1)},${y(p.v).toFixed(1)}`).join('');
    const line = svgEl('path', {class: 'previous', d});
    line.append(svgEl('title', {}, `${label}, moved forward`));
    svg.append(line);
  }
  for (const m of markers) {
    if (m.t < t0 || m.t > t1) continue;
    const line = svgEl('line', {class: 'alert-marker', x1: x(m.t), x2: x(m.t), y1: pad.t, y2: H - pad.b, 'data-t': m.t});
    line.append(svgEl('title', {}, `Alert fired: ${m.label}`));
    svg.append(line);
  }
  const cursor = svgEl('line', {class: 'cursor', y1: pad.t, y2: H - pad.b, visibility: 'hidden'});
  svg.append(cursor);
  const head = div('panel-unit', unit);
  el.append(head, svg);
  const box = {x, t0, t1, W, H, pad};
  if (tooltip) hover(svg, cursor, layers, times, bucket, box, tooltip, unit, stacked, before, label);
  if (onZoom) zoom(svg, box, onZoom);
}

// legend lists the series; a click on an entry's swatch hides or shows it, and the entry
// itself opens the drill-down of its keys.
function legend(series, pick, hidden, redraw) {
  const box = div('legend');
  for (const s of series) {
    const item = document.createElement('span');
    item.className = 'legend-item';
    const toggle = document.createElement('button');
    toggle.type = 'button';
    toggle.className = 'legend-toggle';
    toggle.style.background = hidden.has(s.name) ? 'transparent' : s.colour;
    toggle.style.borderColor = s.colour;
    toggle.setAttribute('aria-pressed', String(!hidden.has(s.name)));
    toggle.setAttribute('aria-label', `Show ${s.name}`);
    toggle.addEventListener('click', (ev) => {
      ev.stopPropagation();
      if (hidden.has(s.name)) hidden.delete(s.name);
      else hidden.add(s.name);
      redraw();
    });
    const name = document.createElement('span');
    name.textContent = s.name;
    if (hidden.has(s.name)) item.classList.add('off');
    item.append(toggle, name);
    pickable(name, pick, s.statement, s.keys || [], s.name);
    box.append(item);
  }
  return box;
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
    const tip = document.getElementById('tooltip');
    if (tip) tip.hidden = true; // the chart under it is about to go
    onZoom(Math.floor(time(a)), Math.ceil(time(b)));
  });
}

// hover shows the values of the bucket under the pointer, with their units (and the total of
// a stack).
function hover(svg, cursor, layers, times, bucket, {x, t0, t1, W, pad}, tip, unit, stacked, before, label) {
  if (!times.length) return;
  svg.addEventListener('pointermove', (ev) => {
    const box = svg.getBoundingClientRect();
    const px = (ev.clientX - box.left) * W / box.width;
    const want = t0 + (px - pad.l) / (W - pad.l - pad.r) * (t1 - t0) - bucket / 2;
    let t = times[0];
    for (const c of times) if (Math.abs(c - want) < Math.abs(t - want)) t = c;
    cursor.setAttribute('x1', x(t + bucket / 2));
    cursor.setAttribute('x2', x(t + bucket / 2));
    cursor.setAttribute('visibility', 'visible');
    const lines = [div('tip-head', `${formatBucket(t)} – ${formatBucket(t + bucket, true)} (${unit})`)];
    let sum = 0;
    const rows = layers.map(({s, pts}) => ({s, p: pts.find((q) => q.t === t)})).filter((r) => r.p);
    rows.sort((a, b) => (b.p.v ?? 0) - (a.p.v ?? 0));
    for (const {s, p} of rows.slice(0, 12)) {
      sum += p.v ?? 0;
      const line = div('');
      const swatch = document.createElement('i');
      swatch.style.background = s.colour;
      line.append(swatch, `${s.name}: ${formatValue(p.v, unit)}`);
      lines.push(line);
    }
    if (rows.length > 12) lines.push(div('muted', `showing 12 of ${rows.length}`));
    if (stacked && rows.length > 1) lines.push(div('tip-total', `Total: ${formatValue(sum, unit)}`));
    if (before) lines.push(div('tip-previous', `${label}: ${formatValue(before.get(t) ?? 0, unit)}`));
    tip.replaceChildren(...lines);
    tip.hidden = false;
    tip.style.left = `${Math.max(8, Math.min(ev.clientX + 14, innerWidth - tip.offsetWidth - 8))}px`;
    tip.style.top = `${ev.clientY + 14}px`;
  });
  svg.addEventListener('pointerleave', () => {
    cursor.setAttribute('visibility', 'hidden');
    tip.hidden = true;
  });
}
