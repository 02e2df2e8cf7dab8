// collector.js: the flow collector's status (#/collector): the sockets it listens on, its
// totals, a row per exporter, the routers' BGP sessions, and the capture probe's counters (drops of the kernel's ring and
// of the conversation table among them), from the collector-status function, asked again every
// REFRESH milliseconds while the view shows (and the tab is visible).

import {AUTH_NEEDED} from './api.js';
import {formatValue} from './format.js';
import {$, el, formatDate} from './ui.js';

const REFRESH = 5000;

// QUIET is how long without a datagram makes an exporter show as quiet (Cisco routers send
// templates at least every 30 minutes; a busy exporter sends every second).
const QUIET = 5 * 60 * 1000;

const PROTOCOLS = {netflow: 'NetFlow', sflow: 'sFlow'};
const KINDS = {'netflow-v5': 'NetFlow v5', 'netflow-v9': 'NetFlow v9', 'ipfix': 'IPFIX', 'sflow-v5': 'sFlow v5'};

const count = new Intl.NumberFormat();

// COLUMNS are the table's columns after the exporter's address: heading, class and cell.
const COLUMNS = [
  {name: 'Protocols', cell: (e) => e.protocols.length ? e.protocols.map((p) => KINDS[p] || p).join(', ') : '–'},
  {name: 'Flows/s', num: true, cell: (e) => formatValue(e.flows_per_second)},
  {name: 'Flows', num: true, cell: (e) => count.format(e.flows)},
  {name: 'Datagrams', num: true, cell: (e) => count.format(e.datagrams)},
  {name: 'Dropped', num: true, cell: (e) => count.format(e.dropped), bad: (e) => e.dropped > 0},
  {name: 'Errors', num: true, cell: errorsCell, bad: (e) => problems(e).length > 0},
  {name: 'Templates', num: true, cell: (e) => count.format(e.templates)},
  {name: 'First seen', cell: (e) => timeCell(e.first_seen)},
  {name: 'Last seen', cell: (e) => lastSeenCell(e.last_seen)},
];

// problems lists an exporter's counters of trouble besides drops, for people.
function problems(e) {
  const out = [];
  if (e.decode_errors) out.push(`${count.format(e.decode_errors)} undecodable`);
  if (e.sets_without_template) out.push(`${count.format(e.sets_without_template)} sets without template`);
  if (e.templates_refused) out.push(`${count.format(e.templates_refused)} templates refused`);
  if (e.records_invalid) out.push(`${count.format(e.records_invalid)} records invalid`);
  if (e.fields_ignored) out.push(`${count.format(e.fields_ignored)} vendor fields ignored`);
  return out;
}

function errorsCell(e) {
  const p = problems(e);
  if (!p.length) return '0';
  const box = el('span');
  for (const [i, text] of p.entries()) {
    if (i) box.append(el('br'));
    box.append(text);
  }
  return box;
}

function timeCell(t) {
  return el('time', {datetime: t, title: new Date(t).toLocaleString([], {hourCycle: 'h23'})}, formatDate(t));
}

// lastSeenCell says how long ago t was, with a "quiet" badge after QUIET.
function lastSeenCell(t) {
  const ago = Date.now() - Date.parse(t);
  const box = el('span');
  box.append(el('time', {datetime: t, title: new Date(t).toLocaleString([], {hourCycle: 'h23'})}, since(ago)));
  if (ago > QUIET) box.append(' ', el('span', {class: 'badge quiet'}, 'quiet'));
  return box;
}

// since writes a time span for people: "just now", "12 s ago", "5 min ago", "3 h ago".
function since(ms) {
  const s = Math.floor(ms / 1000);
  if (s < 2) return 'just now';
  if (s < 120) return `${s} s ago`;
  if (s < 7200) return `${Math.floor(s / 60)} min ago`;
  if (s < 172800) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} days ago`;
}

// layerTile is the tile of one layer's counters l (collector-status's capture.http, dns or
// tls): its records, noted with the parts that are not zero ([field, words, bad]), else idle;
// bad (red) when one of the bad parts is not zero.
function layerTile(name, l = {}, idle, parts, key) {
  const some = parts.filter(([f]) => l[f] > 0);
  const note = some.map(([f, words]) => `${count.format(l[f])} ${words}`).join(', ') || idle;
  return [name, l.records || 0, note, some.some(([, , bad]) => bad), key];
}

// Collector shows the collector's status over api.
export class Collector {
  constructor(api) {
    this.api = api;
    this.timer = 0;
    this.enabled = null; // whether the service collects flows, once known
    $('collector-head').replaceChildren(el('th', {scope: 'col'}, 'Exporter'),
      ...COLUMNS.map((c) => el('th', {scope: 'col', class: c.num ? 'num' : ''}, c.name)));
    document.addEventListener('visibilitychange', () => {
      if (!document.hidden && this.showing()) this.refresh();
    });
  }

  showing() {
    return !$('collector-view').hidden;
  }

  // show answers the status at once, then again every REFRESH while the view shows.
  async show() {
    clearTimeout(this.timer);
    await this.refresh();
  }

  async refresh() {
    clearTimeout(this.timer);
    try {
      this.draw(await this.api.read('collector-status'));
      $('collector-error').hidden = true;
    } catch (e) {
      if (e.code === AUTH_NEEDED) return; // the sign-in form shows
      $('collector-error').textContent = `The status could not be read: ${e.message}. Trying again.`;
      $('collector-error').hidden = false;
    }
    // No collector or probe starts while the service runs.
    if (this.enabled === false && !this.polled && !this.capturing && !this.peering) return;
    this.timer = setTimeout(() => {
      if (this.showing() && !document.hidden) this.refresh();
    }, REFRESH);
  }

  draw(st) {
    this.enabled = st.enabled;
    $('collector-disabled').hidden = st.enabled;
    $('collector-status').hidden = !st.enabled;
    $('collector-updated').textContent = `Updated ${new Date().toLocaleTimeString([], {hourCycle: 'h23'})}`;
    this.drawSNMP(st.snmp || []);
    this.drawBGP(st.bgp || []);
    this.drawCapture(st.capture);
    this.drawQueue(st.queue);
    if (!st.enabled) return;
    $('collector-listen').replaceChildren(...st.listen.map((s) => {
      const li = el('li');
      li.append(`${PROTOCOLS[s.protocol] || s.protocol} on `, el('code', {}, s.address));
      return li;
    }));
    const t = st.totals;
    const tiles = [
      ['Exporters', t.exporters, `${count.format(t.exporters)} of at most ${count.format(st.max_exporters)}`],
      ['Flows per second', t.flows_per_second, 'Over the last minute'],
      ['Flows', t.flows, `${count.format(t.records_stored)} record${t.records_stored === 1 ? '' : 's'} stored`],
      ['Datagrams', t.datagrams, `${count.format(t.decode_errors)} undecodable`],
      ['Dropped', t.dropped + t.refused_datagrams, dropNote(t), t.dropped + t.refused_datagrams + t.records_lost > 0],
    ];
    $('collector-totals').replaceChildren(...tiles.map(([name, v, note, bad]) => {
      const d = el('div', {class: `card stat${bad ? ' bad' : ''}`});
      d.append(el('span', {class: 'stat-name'}, name),
        el('span', {class: 'stat-value', title: count.format(v)}, formatValue(v)),
        el('span', {class: 'stat-note'}, note));
      return d;
    }));
    $('collector-body').replaceChildren(...st.exporters.map((e) => this.row(e)));
    $('collector-table').hidden = st.exporters.length === 0;
    $('collector-none').hidden = st.exporters.length > 0;
  }

  // drawCapture shows the capture probe's counters, when it runs: what it saw, what the kernel's
  // ring dropped (the probe did not keep up), the conversations the full table ended early, the
  // records stored or lost, and per layer the records made and what the probe could not read.
  drawCapture(c) {
    this.capturing = Boolean(c);
    $('collector-capture').hidden = !c;
    if (!c) return;
    $('collector-capture-sources').replaceChildren(...c.sources.map((s) => {
      const li = el('li');
      li.append(el('code', {}, s));
      return li;
    }));
    const lost = c.failed + c.invalid;
    const tiles = [
      ['Packets', c.packets, c.finished ? `${count.format(c.finished)} of ${count.format(c.sources.length)} sources finished` : 'Seen by the conversation tables', false, 'packets'],
      ['Ring drops', c.drops, c.drops ? 'Dropped by the kernel’s capture ring: the probe did not keep up' : 'None by the kernel’s capture ring', c.drops > 0, 'drops'],
      ['Table evictions', c.evicted, c.evicted ? 'Conversations ended early: the conversation table was full' : 'None: the conversation table had room', c.evicted > 0, 'evicted'],
      ['Records', c.records, lost ? `${count.format(c.stored)} stored, ${count.format(lost)} lost` : `${count.format(c.stored)} stored`, lost > 0, 'records'],
      layerTile('HTTP requests', c.http, 'Requests in clear, each a record', [['unanswered', 'without a response'],
        ['orphans', 'responses to no request seen'], ['given_up', 'connections given up', true], ['paths_left_out', 'paths past the hour’s bound', true]], 'http'),
      layerTile('DNS queries', c.dns, 'Queries, each a record', [['timeouts', 'unanswered'], ['forgotten', 'forgotten unanswered', true],
        ['names_left_out', 'names past the hour’s bound', true]], 'dns'),
      layerTile('TLS handshakes', c.tls, 'Handshakes, each a record', [['certs_skipped', 'certificates not read', true],
        ['issuers_left_out', 'issuers past the hour’s bound', true]], 'tls'),
    ];
    $('collector-capture-totals').replaceChildren(...tiles.map(([name, v, note, bad, key]) => {
      const d = el('div', {class: `card stat${bad ? ' bad' : ''}`, 'data-capture': key});
      d.append(el('span', {class: 'stat-name'}, name),
        el('span', {class: 'stat-value', title: count.format(v)}, formatValue(v)),
        el('span', {class: 'stat-note'}, note));
      return d;
    }));
  }

  // drawQueue shows the queue (-queue): records published, batches waiting and their oldest's
  // age (the consumers' lag), delivered again, and refused by the store (dead letters).
  drawQueue(q) {
    $('collector-queue').hidden = !q;
    if (!q) return;
    const tiles = [
      ['Published', q.published, q.error ? q.error : (q.refused ? `${count.format(q.refused)} records could not be published` : 'Records this node published'), Boolean(q.error) || q.refused > 0, 'published'],
      ['Pending', q.pending, q.pending ? `Batches waiting, the oldest for ${count.format(Math.round(q.oldest_age))} s` : 'No batch waiting', false, 'pending'],
      ['Redelivered', q.redelivered, 'Batches this node was given again, stored once', false, 'redelivered'],
      ['Dead letters', q.dead_letters, 'Batches the store refused for their content', q.dead_letters > 0, 'dead'],
    ];
    $('collector-queue-totals').replaceChildren(...tiles.map(([name, v, note, bad, key]) => {
      const d = el('div', {class: `card stat${bad ? ' bad' : ''}`, 'data-queue': key});
      d.append(el('span', {class: 'stat-name'}, name),
        el('span', {class: 'stat-value', title: count.format(v)}, formatValue(v)),
        el('span', {class: 'stat-note'}, note));
      return d;
    }));
  }

  // drawSNMP shows the last SNMP poll of each exporter the snmp setting lists: a failed poll
  // keeps the names last found, and says so.
  drawSNMP(polls) {
    this.polled = polls.length > 0;
    $('collector-snmp-card').hidden = polls.length === 0;
    $('collector-snmp-body').replaceChildren(...polls.map((p) => {
      const tr = el('tr', {'data-snmp': p.address});
      const status = el('td', {class: p.error ? 'bad snmp-state' : 'snmp-state'});
      status.append(p.last_poll ? timeCell(p.last_poll) : 'not yet');
      if (p.error) status.append(el('br'), `failed: ${p.error}${p.last_answer ? '; the names last found stay in use' : ''}`);
      const answer = el('td', {class: 'snmp-answer'});
      answer.append(p.last_answer ? timeCell(p.last_answer) : 'never');
      tr.append(el('th', {scope: 'row', class: 'name'}, p.address), el('td', {}, p.name || '–'),
        el('td', {class: 'num'}, count.format(p.interfaces)), answer, status);
      return tr;
    }));
  }

  // drawBGP shows each router's BGP session (-bgp): its AS, state, the routes learned from it and
  // since when; a router refused for being outside -bgp-peers, and a session not established,
  // show as bad.
  drawBGP(peers) {
    this.peering = peers.length > 0;
    $('collector-bgp-card').hidden = peers.length === 0;
    $('collector-bgp-body').replaceChildren(...peers.map((p) => {
      const tr = el('tr', {'data-bgp': p.address});
      const refused = p.state === 'refused';
      const state = el('td', {class: p.state === 'established' ? 'bgp-state' : 'bad bgp-state', 'data-label': 'State'});
      state.append(refused ? 'refused: outside -bgp-peers' : p.state);
      const since = el('td', {'data-label': 'Since'});
      since.append(refused ? '–' : timeCell(p.since));
      tr.append(el('th', {scope: 'row', class: 'name'}, p.address), el('td', {class: 'num', 'data-label': 'AS'}, p.as ? String(p.as) : '–'),
        state, el('td', {class: 'num', 'data-label': 'Routes'}, count.format(p.routes)), since);
      return tr;
    }));
  }

  row(e) {
    const tr = el('tr', {'data-exporter': e.address});
    tr.append(el('th', {scope: 'row', class: 'name'}, e.address));
    for (const c of COLUMNS) {
      const td = el('td', {'data-label': c.name});
      if (c.num) td.classList.add('num');
      if (c.bad?.(e)) td.classList.add('bad');
      td.append(c.cell(e));
      tr.append(td);
    }
    return tr;
  }
}

// dropNote says why datagrams or records were dropped, when any were.
function dropNote(t) {
  const out = [];
  if (t.dropped) out.push(`${count.format(t.dropped)} by a full queue`);
  if (t.refused_datagrams) out.push(`${count.format(t.refused_datagrams)} from exporters over the bound`);
  if (t.records_lost) out.push(`${count.format(t.records_lost)} records the store refused`);
  return out.length ? out.join('; ') : 'None';
}
