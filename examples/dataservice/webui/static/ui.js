// ui.js: small helpers every view uses: elements, form errors and notices, the error banner,
// busy buttons and the confirmation dialog.

import {APIError, AUTH_NEEDED} from './api.js';

// $ returns the element with the id.
export const $ = (id) => document.getElementById(id);

// el makes an element with attributes and, when given, text.
export function el(tag, attrs = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// labelCells names each cell of tbody's rows after its column's head (data-label): at phone
// widths a table of class cards shows each row as a card, a cell a line, named so.
export function labelCells(tbody) {
  const heads = [...tbody.closest('table').querySelectorAll('thead th')].map((th) => th.textContent);
  for (const tr of tbody.rows) {
    [...tr.cells].forEach((td, i) => { if (heads[i]) td.dataset.label = heads[i]; });
  }
}

// showFormError shows text under a form (hides the box when text is empty); with notice, as a
// quiet notice rather than an error.
export function showFormError(id, text, notice = false) {
  $(id).textContent = text;
  $(id).hidden = !text;
  $(id).classList.toggle('notice', notice);
}

export function showBanner(text) {
  $('banner-text').textContent = text;
  $('banner').hidden = false;
}

export function hideBanner() {
  $('banner').hidden = true;
}

// busy runs action with the button disabled, showing its error under the form: the message
// describe gives (when it gives one), else the error's own.
export async function busy(buttonID, errorID, action, describe = () => '') {
  const b = $(buttonID);
  b.disabled = true;
  showFormError(errorID, '');
  try {
    await action();
  } catch (e) {
    if (e.code !== AUTH_NEEDED || buttonID === 'login-submit') {
      showFormError(errorID, e instanceof APIError ? describe(e) || e.message : String(e));
    }
  } finally {
    b.disabled = false;
  }
}

// confirmAction asks before action runs: title, text, and the label of the button that does it.
// An error of action shows in the banner.
export function confirmAction(title, text, action, label = 'Delete') {
  $('confirm-title').textContent = title;
  $('confirm-text').textContent = text;
  $('confirm-ok').textContent = label;
  $('confirm-form').onsubmit = async (ev) => {
    ev.preventDefault();
    $('confirm-dialog').close();
    try {
      await action();
    } catch (e) {
      if (e.code !== AUTH_NEEDED) showBanner(e.message);
    }
  };
  $('confirm-dialog').showModal();
}

// formatDate shows an RFC 3339 time as a medium date and a short time; '–' for none.
export function formatDate(t) {
  if (!t) return '–';
  return new Date(t).toLocaleString([], {dateStyle: 'medium', timeStyle: 'short', hourCycle: 'h23'});
}

// caretLine shows the line of text at pos with a caret under pos.
export function caretLine(text, pos) {
  const start = text.lastIndexOf('\n', pos - 1) + 1;
  const end = text.indexOf('\n', pos) < 0 ? text.length : text.indexOf('\n', pos);
  return el('pre', {}, `${text.slice(start, end)}\n${' '.repeat(pos - start)}^`);
}
