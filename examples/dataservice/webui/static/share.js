// share.js: what a widget or Explore's answer offers to compare and share: the comparison with
// an earlier period, and exports as files (CSV text, PNG pictures drawn in the browser).

import {withPeriod} from './explore.js';
import {el} from './ui.js';

// COMPARES are the comparisons the Compare button steps through, in order: none, the period
// before the one shown, and the same period a week before.
export const COMPARES = [
  {mode: '', text: 'Compare', title: 'Overlay the previous period or the same period last week'},
  {mode: 'previous', text: 'vs. previous period', title: 'Overlaid: the previous period. Click for the same period last week', label: 'Previous period'},
  {mode: 'week', text: 'vs. last week', title: 'Overlaid: the same period last week. Click to stop comparing', label: 'Same period last week'},
];

const WEEK = 7 * 86400;

// compareButton is the Compare button: each click moves to the next of COMPARES and calls
// onChange with its mode ('' for none).
export function compareButton(onChange) {
  const b = el('button', {type: 'button', class: 'btn ghost compare-widget', 'aria-pressed': 'false', 'data-compare': ''});
  const show = (i) => {
    const c = COMPARES[i];
    b.textContent = c.text;
    b.title = c.title;
    b.dataset.compare = c.mode;
    b.setAttribute('aria-pressed', String(c.mode !== ''));
  };
  let i = 0;
  show(0);
  b.addEventListener('click', () => {
    i = (i + 1) % COMPARES.length;
    show(i);
    onChange(COMPARES[i].mode);
  });
  return b;
}

// compareShift is how far back the comparison of mode looks from the window {since, until}.
export function compareShift(mode, win) {
  return mode === 'week' ? WEEK : win.until - win.since;
}

// askCompare asks api for the answer of expr over the window win moved back as mode says, and
// returns what the time series overlays: {results, shift, label, mode}.
export async function askCompare(api, expr, win, mode) {
  const shift = compareShift(mode, win);
  const results = await api.call('query', {expr: withPeriod(expr, {since: win.since - shift, until: win.until - shift}).text});
  return {results, shift, mode, label: COMPARES.find((c) => c.mode === mode)?.label || 'Compared'};
}

// download hands data (text or a Blob) to the browser as a file called name.
export function download(name, data, type) {
  const url = URL.createObjectURL(data instanceof Blob ? data : new Blob([data], {type}));
  const a = el('a', {href: url, download: name.replace(/[\\/:*?"<>|]+/g, '_')});
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// SVG_PROPS are the styles a chart's SVG takes from the page's CSS, written into a copy as
// presentation attributes: an SVG drawn as an image sees no stylesheet.
const SVG_PROPS = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity',
  'opacity', 'font-family', 'font-size', 'font-weight', 'text-anchor', 'dominant-baseline', 'visibility', 'display'];

// toPNG draws box as a PNG picture at twice its size on screen, as it shows: its charts (SVG,
// drawn as images), its texts and its swatches, on its background; elements matching skip
// (buttons) are left out, and title, when given, heads the picture. No library: an SVG copy
// with its styles written in becomes a data: image (as the page's CSP allows) drawn on a canvas.
export async function toPNG(box, {skip = '', title = ''} = {}) {
  const scale = 2;
  const r0 = box.getBoundingClientRect();
  const head = title ? 30 : 0;
  const w = Math.ceil(r0.width);
  const h = Math.ceil(r0.height + head);
  const canvas = document.createElement('canvas');
  canvas.width = w * scale;
  canvas.height = h * scale;
  const g = canvas.getContext('2d');
  g.scale(scale, scale);
  const boxStyle = getComputedStyle(box);
  g.fillStyle = background(box);
  g.fillRect(0, 0, w, h);
  if (title) {
    g.font = `600 14px ${boxStyle.fontFamily}`;
    g.fillStyle = boxStyle.color;
    g.textBaseline = 'middle';
    g.fillText(title, 12, 16, w - 24);
  }
  const left = (r) => r.left - r0.left;
  const top = (r) => r.top - r0.top + head;
  const skipped = (e) => (skip && e.closest(skip)) || !e.getClientRects().length;
  for (const svg of box.querySelectorAll('svg')) {
    if (skipped(svg) || svg.parentElement.closest('svg')) continue;
    const r = svg.getBoundingClientRect();
    g.drawImage(await svgImage(svg, r), left(r), top(r), r.width, r.height);
  }
  for (const e of box.querySelectorAll('i, .legend-toggle')) {
    if (skipped(e) || e.closest('svg')) continue;
    const cs = getComputedStyle(e);
    const r = e.getBoundingClientRect();
    g.globalAlpha = opacity(e, box);
    if (cs.backgroundColor === 'rgba(0, 0, 0, 0)') { // a hidden series' swatch: its outline
      g.strokeStyle = cs.borderTopColor;
      g.lineWidth = 2;
      g.strokeRect(left(r) + 1, top(r) + 1, r.width - 2, r.height - 2);
    } else {
      g.fillStyle = cs.backgroundColor;
      g.fillRect(left(r), top(r), r.width, r.height);
    }
    g.globalAlpha = 1;
  }
  const walk = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const p = n.parentElement;
    if (!n.textContent.trim() || p.closest('svg') || skipped(p)) continue;
    const cs = getComputedStyle(p);
    if (cs.visibility === 'hidden') continue;
    g.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    g.fillStyle = cs.color;
    g.globalAlpha = opacity(p, box);
    g.textBaseline = 'middle';
    g.textAlign = 'left';
    range.selectNodeContents(n);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0);
    // A text wrapped over several lines: its words, as many as fit, on each line's box.
    const words = n.textContent.trim().split(/\s+/);
    rects.forEach((r, i) => {
      let line = '';
      if (i === rects.length - 1) {
        line = words.splice(0).join(' ');
      } else {
        while (words.length && g.measureText(line ? `${line} ${words[0]}` : words[0]).width <= r.width + 1) {
          line = line ? `${line} ${words.shift()}` : words.shift();
        }
      }
      g.fillText(line, left(r), top(r) + r.height / 2, r.width + 2);
    });
    g.globalAlpha = 1;
  }
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('no picture'))), 'image/png'));
}

// svgImage loads a copy of svg, its styles written in, as an image of size r.
function svgImage(svg, r) {
  const copy = svg.cloneNode(true);
  const from = [svg, ...svg.querySelectorAll('*')];
  const to = [copy, ...copy.querySelectorAll('*')];
  from.forEach((e, i) => {
    const cs = getComputedStyle(e);
    for (const p of SVG_PROPS) to[i].setAttribute(p, cs.getPropertyValue(p));
    to[i].removeAttribute('class');
  });
  for (const t of copy.querySelectorAll('title')) t.remove();
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('width', r.width);
  copy.setAttribute('height', r.height);
  const img = new Image();
  return new Promise((resolve, reject) => {
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error('the chart could not be drawn'));
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(copy))}`;
  });
}

// background is the colour behind e: its own, or that of the nearest ancestor with one.
function background(e) {
  for (let p = e; p; p = p.parentElement) {
    const c = getComputedStyle(p).backgroundColor;
    if (c && c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') return c;
  }
  return '#fff';
}

// opacity is e's opacity as shown: its own times its ancestors' up to box (a hidden series'
// legend entry is dimmed).
function opacity(e, box) {
  let o = 1;
  for (let p = e; p && p !== box.parentElement; p = p.parentElement) o *= Number(getComputedStyle(p).opacity);
  return o;
}
