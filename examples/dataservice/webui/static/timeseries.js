// timeseries.js: the time series chart: a line per value or key combination, the values under
// the pointer, and zoom by dragging across it.

import {PALETTE, div, legend, niceMax, svgEl, svgText} from './draw.js';
import {formatTime, formatValue} from './format.js';

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

export function drawTimeSeries(el, sets, tooltip, pick, onZoom) {
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
  const svg = svgEl('svg', {class: 'chart', viewBox: `0 0 ${W} ${H}`, height: H, role: 'img',
    'aria-label': `Time series of ${series.map((s) => s.name).join(', ')} from ${formatTime(t0)} to ${formatTime(t1)}`});
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
