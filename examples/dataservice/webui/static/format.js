// format.js: values, keys, times and durations written for people.

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

// formatDuration writes seconds as the largest whole unit: "6 hours", "90 s".
export function formatDuration(s) {
  if (s && s % 86400 === 0) return s === 86400 ? '1 day' : `${s / 86400} days`;
  if (s && s % 3600 === 0) return s === 3600 ? '1 hour' : `${s / 3600} hours`;
  if (s && s % 60 === 0) return s === 60 ? '1 minute' : `${s / 60} minutes`;
  return `${s} s`;
}
