// zones.js: the operator's zones and applications (#/zones), administrators only: list-zones,
// set-zone, delete-zone, list-applications, set-application and delete-application (API 1.3).
// Each form checks what is typed as it is typed, with the server's rules (checkName,
// checkNetwork, checkPorts); the server checks again, the whole set, on saving.

import {argumentError, actionCell} from './account.js';
import {$, el, busy, confirmAction, formatDate, labelCells, showFormError} from './ui.js';

// PROTOCOLS are the protocols a rule takes; only those with ports take ports.
const PROTOCOLS = {'': 'Any', tcp: 'TCP', udp: 'UDP', sctp: 'SCTP', icmp: 'ICMP', icmpv6: 'ICMPv6'};
const WITH_PORTS = new Set(['', 'tcp', 'udp', 'sctp']);

// checkName returns why a zone or application name is refused, '' when it is fine.
export function checkName(name) {
  if (name === '') return 'a name is needed';
  if (new TextEncoder().encode(name).length > 200) return 'at most 200 bytes';
  if (name === 'other' || name === 'unknown') return `“${name}” is reserved`;
  if (name.split('/').some((p) => p === '' || p.trim() !== p)) return 'each part between slashes must be non-empty, without leading or trailing spaces';
  if (/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(name)) return 'no control or bidirectional formatting characters';
  if (/[<>"\\]/.test(name)) return 'no markup characters (< >), quotes or backslashes';
  return '';
}

// parseIP returns an address's bits as a BigInt and its width (32 or 128), or null.
function parseIP(text) {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const parts = v4.slice(1).map(Number);
    if (parts.some((p) => p > 255) || v4.slice(1).some((p) => p.length > 1 && p[0] === '0')) return null;
    return {bits: parts.reduce((a, p) => (a << 8n) | BigInt(p), 0n), width: 32};
  }
  if (!text.includes(':') || !/^[0-9a-fA-F:.]+$/.test(text) || (text.match(/::/g) || []).length > 1) return null;
  let [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const groups = (s) => (s === '' ? [] : s.split(':'));
  let hs = groups(head), ts = tail === null ? [] : groups(tail);
  const last = (tail === null ? hs : ts);
  if (last.length && last[last.length - 1].includes('.')) { // embedded IPv4
    const ip4 = parseIP(last.pop());
    if (!ip4 || ip4.width !== 32) return null;
    last.push((ip4.bits >> 16n).toString(16), (ip4.bits & 0xffffn).toString(16));
  }
  const missing = 8 - hs.length - ts.length;
  if ((tail === null && missing !== 0) || (tail !== null && missing < 1)) return null;
  const all = [...hs, ...Array(tail === null ? 0 : missing).fill('0'), ...ts];
  if (all.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  return {bits: all.reduce((a, g) => (a << 16n) | BigInt(parseInt(g, 16)), 0n), width: 128};
}

// checkNetwork returns why a CIDR is refused (not a CIDR, host bits set), '' when it is fine.
export function checkNetwork(text) {
  const [addr, len, extra] = text.split('/');
  const ip = addr ? parseIP(addr) : null;
  if (!ip || len === undefined || extra !== undefined || !/^\d{1,3}$/.test(len) || Number(len) > ip.width) {
    return `“${text}” is not a CIDR such as 10.1.0.0/16 or 2001:db8::/32`;
  }
  const host = (1n << BigInt(ip.width - Number(len))) - 1n;
  if (ip.bits & host) return `${text} has host bits set`;
  return '';
}

// checkPorts returns why a rule's ports are refused, '' when they are fine.
export function checkPorts(text, protocol) {
  if (text === '') return '';
  const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text);
  if (!m) return `“${text}”: a port from 1 to 65535 or a range such as 8000-8100`;
  const lo = Number(m[1]), hi = m[2] === undefined ? lo : Number(m[2]);
  if (lo < 1 || hi > 65535) return `“${text}”: ports go from 1 to 65535`;
  if (hi < lo) return `“${text}”: the range ends before it starts, so the rule can never match`;
  if (!WITH_PORTS.has(protocol)) return `${PROTOCOLS[protocol]} has no ports, so the rule can never match`;
  return '';
}

// inZone tells whether zone is name or nested in it.
const inZone = (zone, name) => zone === name || zone.startsWith(`${name}/`);

const lines = (text) => text.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);

// Zones shows and handles the zones and applications view over api.
export class Zones {
  constructor(api) {
    this.api = api;
    this.zones = [];
    this.apps = [];
    $('zone-form').addEventListener('submit', (ev) => this.saveZone(ev));
    $('zone-form').addEventListener('input', () => this.checkZone());
    $('app-form').addEventListener('submit', (ev) => this.saveApp(ev));
    $('app-form').addEventListener('input', () => this.checkApp());
    $('app-form').addEventListener('change', () => this.checkApp());
    $('app-add-rule').addEventListener('click', () => { this.addRule(); this.checkApp(); });
    $('zone-new').addEventListener('click', () => this.editZone(null));
    $('app-new').addEventListener('click', () => this.editApp(null));
  }

  // show lists the zones and applications and empties the forms.
  async show() {
    [this.zones, this.apps] = await Promise.all([this.api.call('list-zones'), this.api.call('list-applications')]);
    $('zone-names').replaceChildren(...this.zones.map((z) => el('option', {value: z.name})));
    $('zones-body').replaceChildren(...this.zones.map((z) => this.zoneRow(z)));
    $('zones-empty').hidden = this.zones.length > 0;
    $('apps-body').replaceChildren(...this.apps.map((a) => this.appRow(a)));
    labelCells($('zones-body'));
    labelCells($('apps-body'));
    $('apps-empty').hidden = this.apps.length > 0;
    this.editZone(null);
    this.editApp(null);
  }

  zoneRow(z) {
    const edit = el('button', {type: 'button', class: 'btn ghost small edit-zone'}, 'Edit');
    edit.addEventListener('click', () => this.editZone(z));
    const del = el('button', {type: 'button', class: 'btn ghost small danger-text delete-zone'}, 'Delete');
    del.addEventListener('click', () => confirmAction('Delete zone?',
      `“${z.name}” will be deleted: records that arrive afterwards are no longer in it; those stored keep it.`,
      async () => { await this.api.call('delete-zone', {name: z.name}); await this.show(); }));
    const tr = el('tr', {'data-zone': z.name});
    tr.append(el('td', {class: 'name'}, z.name), el('td', {class: 'networks'}, z.networks.join(', ')),
      el('td', {}, formatDate(z.updated)), actionCell(edit, del));
    return tr;
  }

  appRow(a) {
    const edit = el('button', {type: 'button', class: 'btn ghost small edit-app'}, 'Edit');
    edit.addEventListener('click', () => this.editApp(a));
    const del = el('button', {type: 'button', class: 'btn ghost small danger-text delete-app'}, 'Delete');
    del.addEventListener('click', () => confirmAction('Delete application?', `“${a.name}” will be deleted.`,
      async () => { await this.api.call('delete-application', {name: a.name}); await this.show(); }));
    const tr = el('tr', {'data-app': a.name});
    tr.append(el('td', {class: 'name'}, a.name), el('td', {class: 'rules'}, a.rules.map(describeRule).join('; ')),
      el('td', {}, formatDate(a.updated)), actionCell(edit, del));
    return tr;
  }

  editZone(z) {
    $('zone-name').value = z ? z.name : '';
    $('zone-networks').value = z ? z.networks.join('\n') : '';
    this.checkZone();
    showFormError('zone-error', '');
  }

  // checkZone checks the zone form as typed; it answers whether it may be saved.
  checkZone() {
    const name = $('zone-name').value.trim();
    const problems = [];
    const nameProblem = name === '' ? '' : checkName(name);
    if (nameProblem) problems.push(`Name: ${nameProblem}`);
    const seen = new Set();
    for (const n of lines($('zone-networks').value)) {
      const p = checkNetwork(n);
      if (p) problems.push(p);
      else if (seen.has(n)) problems.push(`${n} is listed twice`);
      else {
        const other = this.zones.find((z) => z.name !== name && z.networks.includes(n));
        if (other) problems.push(`${n} is already in zone “${other.name}”`);
      }
      seen.add(n);
    }
    $('zone-name').classList.toggle('invalid', !!nameProblem);
    $('zone-networks').classList.toggle('invalid', problems.length > (nameProblem ? 1 : 0));
    $('zone-check').textContent = problems.join('\n');
    $('zone-check').hidden = problems.length === 0;
    $('zone-save').disabled = problems.length > 0 || name === '';
    return problems.length === 0 && name !== '';
  }

  async saveZone(ev) {
    ev.preventDefault();
    if (!this.checkZone()) return;
    const args = {name: $('zone-name').value.trim(), networks: lines($('zone-networks').value)};
    await busy('zone-save', 'zone-error', async () => {
      await this.api.call('set-zone', args);
      await this.show();
      showFormError('zone-error', `Zone “${args.name}” saved.`, true);
    }, (e) => argumentError(e, {name: 'Name', networks: 'Networks'}));
  }

  editApp(a) {
    $('app-name').value = a ? a.name : '';
    $('app-rules').replaceChildren();
    for (const r of a ? a.rules : [{}]) this.addRule(r);
    this.checkApp();
    showFormError('app-error', '');
  }

  // addRule adds a row of the rule r to the application form.
  addRule(r = {}) {
    const row = el('div', {class: 'rule-row'});
    const proto = el('select', {class: 'rule-protocol', 'aria-label': 'Protocol'});
    for (const [v, label] of Object.entries(PROTOCOLS)) proto.append(el('option', {value: v}, label));
    proto.value = r.protocol || '';
    const input = (cls, label, value, attrs = {}) =>
      el('input', {class: cls, 'aria-label': label, placeholder: label, value: value || '', spellcheck: 'false', autocomplete: 'off', ...attrs});
    const remove = el('button', {type: 'button', class: 'btn ghost small'}, 'Remove');
    remove.addEventListener('click', () => { row.remove(); this.checkApp(); });
    row.append(proto, input('rule-ports', 'Server ports (443 or 8000-8100)', r.ports),
      input('rule-server-zone', 'Server zone', r.server_zone, {list: 'zone-names'}),
      input('rule-client-zone', 'Client zone', r.client_zone, {list: 'zone-names'}),
      input('rule-networks', 'Server networks (CIDRs)', (r.networks || []).join(', ')), remove);
    $('app-rules').append(row);
  }

  rules() {
    return [...document.querySelectorAll('#app-rules .rule-row')].map((row) => ({
      protocol: row.querySelector('.rule-protocol').value,
      ports: row.querySelector('.rule-ports').value.trim(),
      server_zone: row.querySelector('.rule-server-zone').value.trim(),
      client_zone: row.querySelector('.rule-client-zone').value.trim(),
      networks: lines(row.querySelector('.rule-networks').value),
    }));
  }

  // checkApp checks the application form as typed; it answers whether it may be saved.
  checkApp() {
    const name = $('app-name').value.trim();
    const problems = [];
    const nameProblem = name === '' ? '' : checkName(name);
    if (nameProblem) problems.push(`Name: ${nameProblem}`);
    const rules = this.rules();
    if (rules.length === 0) problems.push('An application needs at least one rule.');
    const rows = document.querySelectorAll('#app-rules .rule-row');
    rules.forEach((r, i) => {
      const mine = [];
      const ports = checkPorts(r.ports, r.protocol);
      if (ports) mine.push(ports);
      for (const [label, z] of [['server', r.server_zone], ['client', r.client_zone]]) {
        if (z && !this.zones.some((zone) => inZone(zone.name, z))) mine.push(`no zone “${z}”, so the rule can never match (${label} zone)`);
      }
      for (const n of r.networks) {
        const p = checkNetwork(n);
        if (p) mine.push(p);
      }
      rows[i].classList.toggle('invalid', mine.length > 0);
      problems.push(...mine.map((p) => `Rule ${i + 1}: ${p}`));
    });
    $('app-name').classList.toggle('invalid', !!nameProblem);
    $('app-check').textContent = problems.join('\n');
    $('app-check').hidden = problems.length === 0;
    $('app-save').disabled = problems.length > 0 || name === '';
    return problems.length === 0 && name !== '';
  }

  async saveApp(ev) {
    ev.preventDefault();
    if (!this.checkApp()) return;
    const args = {name: $('app-name').value.trim(), rules: this.rules()};
    await busy('app-save', 'app-error', async () => {
      await this.api.call('set-application', args);
      await this.show();
      showFormError('app-error', `Application “${args.name}” saved.`, true);
    }, (e) => argumentError(e, {name: 'Name', rules: 'Rules'}));
  }
}

// describeRule writes a rule for the table: "tcp 443, server in DMZ".
export function describeRule(r) {
  const parts = [[r.protocol, r.ports].filter(Boolean).join(' ') || 'any'];
  if (r.server_zone) parts.push(`server in ${r.server_zone}`);
  if (r.client_zone) parts.push(`client in ${r.client_zone}`);
  if (r.networks && r.networks.length) parts.push(`server in ${r.networks.join(', ')}`);
  return parts.join(', ');
}
