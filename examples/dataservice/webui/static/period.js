// period.js: the period a dashboard or Explore shows, its place in the URL and its picker.
//
// A period is null (each query's own SINCE and UNTIL, the service's default period when it has
// none), {last: seconds} (a preset: the seconds before now), or {since, until} in Unix seconds
// (custom; until null means now). In the URL fragment it is range=6h, or since=T&until=T.
// Only periods that end now are live.

import {formatDuration} from './format.js';
import {el} from './ui.js';

export const PRESETS = [
  {name: '15m', last: 900, label: 'Last 15 minutes'},
  {name: '1h', last: 3600, label: 'Last hour'},
  {name: '6h', last: 21600, label: 'Last 6 hours'},
  {name: '24h', last: 86400, label: 'Last 24 hours'},
  {name: '7d', last: 604800, label: 'Last 7 days'},
  {name: '30d', last: 2592000, label: 'Last 30 days'},
];

// fromParams reads a period from the URL fragment's parameters.
export function fromParams(params) {
  const preset = PRESETS.find((p) => p.name === params.get('range'));
  if (preset) return {last: preset.last};
  const since = Number(params.get('since'));
  if (params.has('since') && Number.isInteger(since)) {
    const until = params.has('until') ? Number(params.get('until')) : null;
    if (until === null || (Number.isInteger(until) && until > since)) return {since, until};
  }
  return null;
}

// toParams writes a period into params (removing what was there).
export function toParams(period, params) {
  for (const k of ['range', 'since', 'until']) params.delete(k);
  if (!period) return params;
  if (period.last) params.set('range', PRESETS.find((p) => p.last === period.last).name);
  else {
    params.set('since', String(period.since));
    if (period.until !== null) params.set('until', String(period.until));
  }
  return params;
}

// isLive tells whether a period ends now, so that its answers change.
export function isLive(period) {
  return !period || Boolean(period.last) || period.until === null;
}

// bounds gives the period in the query language: {since, until, span} ("@now-3600", "@now").
export function bounds(period) {
  if (period.last) return {since: `@now-${period.last}`, until: '@now', span: period.last};
  const until = period.until ?? Math.floor(Date.now() / 1000);
  return {since: String(period.since), until: period.until === null ? '@now' : String(period.until),
    span: until - period.since};
}

// windowOf gives the span an answer over period covers, {since, until} in Unix seconds: the
// period's own, or for each query's own period (null) the accumulated_time (acc) of a whole
// answer (one still loading covers less) up to now.
export function windowOf(period, acc, progress = 1) {
  const now = Math.floor(Date.now() / 1000);
  if (period?.last) return {since: now - period.last, until: now};
  if (period) return {since: period.since, until: period.until ?? now};
  if (!acc || progress < 1) return null;
  return {since: now - acc, until: now};
}

// describe says the period in words.
export function describe(period) {
  if (!period) return OWN;
  if (period.last) return PRESETS.find((p) => p.last === period.last).label;
  const until = period.until === null ? 'now' : when(period.until);
  return `${when(period.since)} – ${until}`;
}

function when(t) {
  return new Date(t * 1000).toLocaleString([], {dateStyle: 'medium', timeStyle: 'short', hourCycle: 'h23'});
}

// localInput writes Unix seconds as local "YYYY-MM-DD HH:MM" (24-hour, whatever the browser's
// locale: a native datetime-local input would show 12-hour clocks beside the page's 24-hour
// ones); fromLocalInput reads that back (or with a T), null when empty, NaN when unreadable.
function localInput(t) {
  const d = new Date(t * 1000 - new Date(t * 1000).getTimezoneOffset() * 60000);
  return d.toISOString().slice(0, 16).replace('T', ' ');
}

function fromLocalInput(v) {
  v = v.trim();
  if (!v) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})$/.exec(v);
  if (!m) return NaN;
  return Math.floor(new Date(+m[1], m[2] - 1, +m[3], +m[4], +m[5]).getTime() / 1000);
}

const OWN = 'Each query’s own period';

// Picker is the period control: a select of presets and a custom since/until form; onChange
// receives the period the user picks.
export class Picker {
  constructor(id, onChange) {
    this.onChange = onChange;
    this.select = el('select', {class: 'period-select', id: `${id}-select`, 'aria-label': 'Period'});
    this.select.append(el('option', {value: ''}, OWN));
    for (const p of PRESETS) this.select.append(el('option', {value: p.name}, p.label));
    this.select.append(el('option', {value: 'custom'}, 'Custom…'));
    const clock = {type: 'text', inputmode: 'numeric', placeholder: 'YYYY-MM-DD HH:MM', spellcheck: 'false',
      pattern: '\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}', autocomplete: 'off'};
    this.since = el('input', {...clock, id: `${id}-since`, 'aria-label': 'Since (YYYY-MM-DD HH:MM, 24-hour)'});
    this.until = el('input', {...clock, id: `${id}-until`, 'aria-label': 'Until (YYYY-MM-DD HH:MM, 24-hour; empty: now)'});
    this.apply = el('button', {type: 'submit', class: 'btn small', id: `${id}-apply`}, 'Apply');
    this.error = el('span', {class: 'form-error', role: 'alert', hidden: ''});
    this.custom = el('form', {class: 'period-custom', hidden: ''});
    const sinceLabel = el('label', {}, 'Since');
    sinceLabel.append(this.since);
    const untilLabel = el('label', {}, 'Until');
    untilLabel.append(this.until);
    this.custom.append(sinceLabel, untilLabel, this.apply, this.error);
    this.element = el('div', {class: 'period', role: 'group', 'aria-label': 'Period shown'});
    this.element.append(this.select, this.custom);
    this.select.addEventListener('change', () => this.picked());
    this.custom.addEventListener('submit', (ev) => this.applyCustom(ev));
  }

  // show shows period in the control.
  show(period) {
    const custom = period && !period.last;
    this.select.value = !period ? '' : custom ? 'custom' : PRESETS.find((p) => p.last === period.last).name;
    this.custom.hidden = !custom;
    this.error.hidden = true;
    if (custom) {
      this.since.value = localInput(period.since);
      this.until.value = period.until === null ? '' : localInput(period.until);
    }
  }

  // own names the choice of no period after what the queries' own periods cover (spans, in
  // seconds; undefined before an answer): "Last hour" when they all cover the same span up to
  // now, else "Each query’s own period".
  own(spans) {
    const one = spans.length > 0 && spans.every((s) => s && s === spans[0]) ? spans[0] : 0;
    this.select.options[0].textContent = one ? PRESETS.find((p) => p.last === one)?.label ?? `Last ${formatDuration(one)}` : OWN;
  }

  picked() {
    const v = this.select.value;
    if (v === 'custom') {
      this.custom.hidden = false;
      const now = Math.floor(Date.now() / 1000);
      if (!this.since.value) this.since.value = localInput(now - 3600);
      this.since.focus();
      return;
    }
    this.custom.hidden = true;
    this.onChange(v ? {last: PRESETS.find((p) => p.name === v).last} : null);
  }

  applyCustom(ev) {
    ev.preventDefault();
    const since = fromLocalInput(this.since.value);
    const until = fromLocalInput(this.until.value);
    let problem = '';
    if (since === null) problem = 'Give the start of the period.';
    else if (Number.isNaN(since) || Number.isNaN(until)) problem = 'Write times as YYYY-MM-DD HH:MM (24-hour).';
    else if (until !== null && until <= since) problem = 'The end must come after the start.';
    this.error.textContent = problem;
    this.error.hidden = !problem;
    if (!problem) this.onChange({since, until});
  }
}
