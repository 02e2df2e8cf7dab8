// format.js: values, keys, times and durations written for people.

// SUFFIXES are the words after a value of a unit; units with a prefix take k, M, G... before
// them (kB, Mbit/s), the others after the number (12.3k packets/s).
const PREFIXED = {bytes: 'B', 'bit/s': 'bit/s'};
const AFTER = {'packets/s': ' packets/s', 'records/s': ' records/s', ms: ' ms'};

// formatValue writes a value for people: 1.2 MB, 34.5k, 0.25, 12.3 Mbit/s, 4.5k packets/s,
// 40.2 ms (unit "seconds": response times).
export function formatValue(v, unit = '') {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  if (unit === 'seconds') return formatSeconds(v);
  const abs = Math.abs(v);
  const prefixed = PREFIXED[unit];
  const steps = ['', 'k', 'M', 'G', 'T', 'P'];
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
  if (prefixed) return `${text} ${steps[i]}${prefixed}`;
  return text + steps[i] + (AFTER[unit] || '');
}

// formatSeconds writes a response time in milliseconds (40.2 ms, 0.35 ms), or in seconds
// from 10 s (12.5 s).
function formatSeconds(v) {
  const ms = v * 1000;
  if (Math.abs(ms) >= 10000) return `${parseFloat(v.toFixed(Math.abs(v) < 100 ? 1 : 0))} s`;
  const digits = Math.abs(ms) < 10 ? 2 : Math.abs(ms) < 100 ? 1 : 0;
  return `${parseFloat(ms.toFixed(digits))} ms`;
}

// formatKey writes a key: a time as a clock time, an autonomous system as "AS15169 GOOGLE", an
// interface as its name (alias) or index, a country as its flag and name, anything else as
// text.
export function formatKey(name, k) {
  if (/^time/.test(name) && typeof k === 'number') return formatTime(k);
  if (k && typeof k === 'object' && 'asn' in k) return `AS${k.asn}${k.name ? ` ${k.name}` : ''}`;
  if (k && typeof k === 'object' && 'index' in k) {
    const label = k.name || `#${k.index}`;
    return k.alias ? `${label} (${k.alias})` : label;
  }
  if (name === 'tls.not_after' && typeof k === 'number') return new Date(k * 1000).toISOString().slice(0, 10);
  if (Array.isArray(k)) return /as_path$/.test(name) ? k.map((n) => `AS${n}`).join(' › ') : k.join(' ');
  if (/country$/.test(name) && typeof k === 'string' && /^[A-Z]{2}$/.test(k)) return `${flag(k)} ${countryName(k)}`;
  return String(k);
}

// flag is the flag emoji of an ISO 3166 alpha-2 code (two regional indicator symbols).
function flag(code) {
  return String.fromCodePoint(...[...code].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65));
}

let regionNames;

// countryName is a country's name in the browser's language, or its code when unknown.
function countryName(code) {
  try {
    regionNames ??= new Intl.DisplayNames(undefined, {type: 'region'});
    return regionNames.of(code) || code;
  } catch {
    return code;
  }
}

const CLOCK = {hour: '2-digit', minute: '2-digit', hourCycle: 'h23'};

// formatTime writes Unix seconds as local HH:MM, on a 24-hour clock (with the date when not
// today).
export function formatTime(t, withSeconds = false) {
  const d = new Date(t * 1000);
  const opts = withSeconds ? {...CLOCK, second: '2-digit'} : CLOCK;
  const time = d.toLocaleTimeString([], opts);
  if (d.toDateString() === new Date().toDateString()) return time;
  return `${d.toLocaleDateString([], {month: 'short', day: 'numeric'})} ${time}`;
}

// formatDateTime writes Unix seconds as a local date and 24-hour time: "Nov 25, 2026, 14:05".
export function formatDateTime(t) {
  return new Date(t * 1000).toLocaleString([], {dateStyle: 'medium', timeStyle: 'short', hourCycle: 'h23'});
}

// formatBucket writes the start of a bucket: a time, with its date when not today (timeOnly:
// the time alone, for the end of a bucket).
export function formatBucket(t, timeOnly = false) {
  return timeOnly ? new Date(t * 1000).toLocaleTimeString([], CLOCK) : formatTime(t);
}

// formatTick writes a tick of a time axis whose ticks are step seconds apart over span
// seconds: dates for ticks a day or more apart, the date at midnight on longer spans, times
// otherwise.
export function formatTick(t, step, span) {
  const d = new Date(t * 1000);
  const midnight = d.getHours() === 0 && d.getMinutes() === 0;
  if (step >= 86400 || (span > 86400 && midnight)) return d.toLocaleDateString([], {month: 'short', day: 'numeric'});
  return d.toLocaleTimeString([], CLOCK);
}

// formatDuration writes seconds as the largest whole unit ("6 hours", "90 s"), or as its two
// largest units when none is whole ("1 h 40 min", "2 days 3 h"): a zoomed period reads 6045 s.
export function formatDuration(s) {
  if (s && s % 86400 === 0) return s === 86400 ? '1 day' : `${s / 86400} days`;
  if (s && s % 3600 === 0) return s === 3600 ? '1 hour' : `${s / 3600} hours`;
  if (s && s % 60 === 0) return s === 60 ? '1 minute' : `${s / 60} minutes`;
  if (!s || s < 120) return `${s} s`;
  const d = Math.floor(s / 86400);
  const h = Math.floor(s % 86400 / 3600);
  const m = Math.floor(s % 3600 / 60);
  if (d) return `${d} day${d === 1 ? '' : 's'}${h ? ` ${h} h` : ''}`;
  if (h) return `${h} h${m ? ` ${m} min` : ''}`;
  return `${m} min${s % 60 ? ` ${s % 60} s` : ''}`;
}
