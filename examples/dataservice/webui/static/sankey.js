// sankey.js: the Sankey view of an answer by two keys or more (client.ip, server.ip,
// application): a column of nodes per key, each as tall as its share of the first value, and
// bands between the columns as wide as the traffic that goes from one node to the next.

import {PALETTE, div, pickable, svgEl, svgText, truncate} from './draw.js';
import {formatKey, formatValue} from './format.js';

// NODES is the most nodes a column shows: the largest, and the rest as one "Other".
export const NODES = 8;

const OTHER = '\u0000other'; // the node of the rest, a name no key value has

// drawSankey draws the first statement of sets (setsOf in charts.js) in el; pick(statement,
// keys) opens the drill-down of a node (its key) or a band (both of its keys).
export function drawSankey(el, sets, pick) {
  const s = sets[0];
  const cols = s.shape.keys.map((name, j) => ({name, j})).filter((c) => !/^time/i.test(c.name));
  if (cols.length < 2) {
    el.append(div('no-data', 'A Sankey view needs two keys or more: BY client.ip, server.ip, application.'));
    return;
  }
  const unit = s.unit(0);
  const rows = s.rows.filter(([, values]) => (values[0] ?? 0) > 0);
  if (!rows.length) {
    el.append(div('no-data', 'Nothing flows: every value is zero.'));
    return;
  }
  // Each column's nodes: the NODES-1 largest values, then Other.
  const cuts = [];
  for (const c of cols) {
    const totals = new Map();
    for (const [keys, values] of rows) totals.set(keys[c.j], (totals.get(keys[c.j]) || 0) + values[0]);
    const order = [...totals.entries()].sort((a, b) => b[1] - a[1]);
    const kept = order.length > NODES ? order.slice(0, NODES - 1) : order;
    c.nodeOf = new Map(kept.map(([k]) => [k, k]));
    c.nodes = kept.map(([k, v]) => ({key: k, value: v}));
    if (order.length > kept.length) {
      c.nodes.push({key: OTHER, value: order.slice(kept.length).reduce((a, [, v]) => a + v, 0)});
      cuts.push(`${NODES - 1} of ${order.length.toLocaleString('en')} ${c.name}`);
    }
    c.byKey = new Map(c.nodes.map((n) => [n.key, n]));
  }
  const node = (c, k) => c.byKey.get(c.nodeOf.has(k) ? k : OTHER);
  // The bands between neighbouring columns, summed over the rows.
  const links = [];
  for (let i = 0; i + 1 < cols.length; i++) {
    const sum = new Map();
    for (const [keys, values] of rows) {
      const a = node(cols[i], keys[cols[i].j]);
      const b = node(cols[i + 1], keys[cols[i + 1].j]);
      const id = `${cols[i].nodes.indexOf(a)}|${cols[i + 1].nodes.indexOf(b)}`;
      const l = sum.get(id) || {from: a, to: b, col: i, value: 0};
      l.value += values[0];
      sum.set(id, l);
    }
    links.push(...sum.values());
  }

  const W = Math.max(320, el.clientWidth || 640);
  const most = Math.max(...cols.map((c) => c.nodes.length));
  const H = Math.max(220, most * 34);
  const top = 22;
  const gap = 8;
  const nodeW = 10;
  const total = rows.reduce((a, [, values]) => a + values[0], 0);
  const scale = (H - top - 4 - gap * (most - 1)) / total;
  const step = (W - nodeW) / (cols.length - 1);
  const svg = svgEl('svg', {class: 'chart sankey', viewBox: `0 0 ${W} ${H}`, height: H, role: pick ? 'group' : 'img',
    'aria-label': `Sankey view of ${s.valueName(0)} from ${cols.map((c) => c.name).join(' to ')}, ${formatValue(total, unit)} in all`});
  cols.forEach((c, i) => {
    c.x = Math.min(i * step, W - nodeW);
    let y = top;
    c.nodes.forEach((n, k) => {
      Object.assign(n, {y, h: Math.max(1, n.value * scale), out: 0, in: 0,
        colour: n.key === OTHER ? '#94a3b8' : PALETTE[k % PALETTE.length], name: n.key === OTHER ? 'Other' : formatKey(c.name, n.key)});
      y += n.h + gap;
    });
    const anchor = i === 0 ? 'start' : i === cols.length - 1 ? 'end' : 'middle';
    svg.append(svgText(c.name, {class: 'sankey-head', x: i === 0 ? 0 : i === cols.length - 1 ? W : c.x + nodeW / 2, y: 13, 'text-anchor': anchor}));
  });
  // Bands leave and reach their nodes in the order of the nodes at their other end.
  links.sort((a, b) => a.to.y - b.to.y || a.from.y - b.from.y);
  for (const l of links) {
    l.y0 = l.from.y + l.from.out;
    l.from.out += l.value * scale;
  }
  links.sort((a, b) => a.from.y - b.from.y || a.to.y - b.to.y);
  const bands = svgEl('g', {class: 'sankey-bands'});
  for (const l of links) {
    const w = Math.max(1, l.value * scale);
    const y1 = l.to.y + l.to.in;
    l.to.in += l.value * scale;
    const x0 = cols[l.col].x + nodeW;
    const x1 = cols[l.col + 1].x;
    const xm = (x0 + x1) / 2;
    const d = `M${x0},${l.y0}C${xm},${l.y0} ${xm},${y1} ${x1},${y1}L${x1},${y1 + w}C${xm},${y1 + w} ${xm},${l.y0 + w} ${x0},${l.y0 + w}Z`;
    const band = svgEl('path', {class: 'sankey-band', d, fill: l.from.colour, 'data-value': l.value,
      'data-from': l.from.name, 'data-to': l.to.name});
    const share = (l.value / total * 100).toFixed(1);
    band.append(svgEl('title', {}, `${l.from.name} → ${l.to.name}: ${formatValue(l.value, unit)} (${share} %)`));
    const keys = [];
    if (l.from.key !== OTHER) keys.push({name: cols[l.col].name, value: l.from.key});
    if (l.to.key !== OTHER) keys.push({name: cols[l.col + 1].name, value: l.to.key});
    pickable(band, pick, s.index, keys, `${l.from.name} to ${l.to.name}`);
    bands.append(band);
  }
  svg.append(bands);
  cols.forEach((c, i) => {
    const last = i === cols.length - 1;
    // A label has the space to the next column (the first of three or more) or half of it
    // (the others share theirs with the labels of the next or last column), at ~6.3 px a character.
    const room = i === 0 && cols.length > 2 ? step - nodeW - 10 : (step - nodeW) / 2 - 8;
    const chars = Math.max(4, Math.floor(room / 6.3));
    for (const n of c.nodes) {
      const g = svgEl('g', {class: 'sankey-node', 'data-name': n.name});
      const rect = svgEl('rect', {x: c.x, y: n.y, width: nodeW, height: n.h, rx: 2, fill: n.colour, 'data-value': n.value});
      rect.append(svgEl('title', {}, `${c.name} ${n.name}: ${formatValue(n.value, unit)} (${(n.value / total * 100).toFixed(1)} %)`));
      const label = svgText(truncate(`${n.name} · ${formatValue(n.value, unit)}`, chars), {class: 'sankey-label',
        x: last ? c.x - 5 : c.x + nodeW + 5, y: n.y + n.h / 2 + 4, 'text-anchor': last ? 'end' : 'start'});
      g.append(rect, label);
      if (n.key !== OTHER) pickable(g, pick, s.index, [{name: c.name, value: n.key}], `${c.name} ${n.name}`);
      svg.append(g);
    }
  });
  el.append(svg);
  if (cuts.length) el.append(div('cut-note', `Showing the ${cuts.join(', ')}; the rest as Other.`));
}

// The service stores widgets of its own kinds only (number, table, timeseries, bar, pie), so
// a Sankey widget is stored as a table with the option view "sankey": other clients show its
// answer as a table, and this page as a Sankey view.

// storedKind is the kind and options to store for a widget of kind (any the page draws).
export function storedKind(kind, options = {}) {
  const {view, ...rest} = options;
  return kind === 'sankey' ? {kind: 'table', options: {...rest, view: 'sankey'}} : {kind, options: rest};
}

// shownKind is the kind the page draws widget w as.
export function shownKind(w) {
  return w.kind === 'table' && w.options?.view === 'sankey' ? 'sankey' : w.kind;
}
