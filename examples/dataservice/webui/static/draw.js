// draw.js: what the charts draw with: SVG and DOM elements, the palette, legends, and the
// drill-down targets.

const SVG = 'http://www.w3.org/2000/svg';

// PALETTE holds the series colours, in order.
export const PALETTE = ['#2563eb', '#f59e0b', '#10b981', '#ef4444', '#8b5cf6', '#06b6d4',
  '#ec4899', '#84cc16', '#64748b', '#f97316'];

// pickable makes e open the drill-down of keys: by click, or by Enter or Space when focused.
export function pickable(e, pick, statement, keys, label) {
  if (!pick || !keys.length || keys.every((k) => /^time/i.test(k.name))) return;
  e.classList.add('pick');
  e.dataset.pick = `${e.tagName}|${statement}|${JSON.stringify(keys)}`; // the same entry in a redrawing
  e.setAttribute('tabindex', '0');
  if (e.tagName === 'TR') {
    e.title = `Explore ${label}`; // a row stays a row of its table, its cells read as they are
  } else {
    e.setAttribute('role', 'button');
    e.setAttribute('aria-label', `Explore ${label}`);
  }
  e.addEventListener('click', () => pick(statement, keys));
  e.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Enter' && ev.key !== ' ') return;
    ev.preventDefault();
    pick(statement, keys);
  });
}

// niceMax rounds a maximum up to 1, 2, 2.5 or 5 times a power of ten.
export function niceMax(v) {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

// legend lists entries ({name, statement, keys}), each in its series' colour.
export function legend(entries, pick) {
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

export function truncate(s, n) {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

export function div(cls, text) {
  const d = document.createElement('div');
  if (cls) d.className = cls;
  if (text !== undefined) d.textContent = text;
  return d;
}

export function cell(row, tag, text, cls) {
  const c = document.createElement(tag);
  c.textContent = text;
  if (cls) c.className = cls;
  row.append(c);
}

export function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

export function svgText(text, attrs) {
  return svgEl('text', attrs, text);
}
