// alerts.js: the Alerts view (#/alerts): the alerts firing now (acknowledge, silence), the
// rules with the state of their notification channels, the history with the values, and a
// form that creates a rule (#/alerts?q=... fills its query from Explore), asked again every
// VIEW_REFRESH milliseconds while the view shows. The badge in the
// section bar counts the alerts firing, asked every REFRESH milliseconds; the firing times
// become markers on time series (timeseries.js). Delete and Silence show on the rules the user
// may change: their own, or any for an administrator (me() says who the user is).

import {AUTH_NEEDED} from './api.js';
import {setMarkers} from './timeseries.js';
import {$, busy, confirmAction, el, formatDate, labelCells} from './ui.js';

const REFRESH = 30000;

// VIEW_REFRESH is how often the view asks again while it shows.
const VIEW_REFRESH = 5000;

// Alerts shows the alerts over api.
export class Alerts {
  constructor(api, me) {
    this.api = api;
    this.me = me; // () => {user, admin}
    this.timer = 0;
    this.viewTimer = 0;
    this.rules = new Map();
    $('alert-form').addEventListener('submit', (ev) => this.create(ev));
  }

  // show fills the view; params.q, from Explore, is the query of a new rule.
  async show(params) {
    if (params?.get('q')) {
      $('alert-query').value = params.get('q');
      $('alert-name').focus();
    }
    await this.refresh();
  }

  // badge counts the firing alerts in the section bar, now and every REFRESH.
  async badge() {
    clearTimeout(this.timer);
    try {
      const firing = await this.api.call('list-alerts', {state: 'firing'});
      $('alerts-badge').textContent = String(firing.length);
      $('alerts-badge').hidden = firing.length === 0;
      const since = new Date(Date.now() - 7 * 86400e3).toISOString();
      const hist = await this.api.call('alert-history', {since});
      setMarkers(hist.filter((e) => e.state === 'firing').map((e) => ({t: Date.parse(e.at) / 1000, label: this.name(e.rule)})));
    } catch (e) {
      if (e.code === AUTH_NEEDED) return;
    }
    this.timer = setTimeout(() => this.badge(), REFRESH);
  }

  name(id) {
    return this.rules.get(id)?.name || id;
  }

  async refresh() {
    // Routers obey what is announced: administrators alone add a bgp channel.
    for (const e of document.querySelectorAll('#alert-form .admin-only')) e.hidden = !this.me().admin;
    clearTimeout(this.viewTimer);
    this.viewTimer = setTimeout(() => {
      if (!$('alerts-view').hidden && !document.hidden) this.refresh().catch(() => {});
    }, VIEW_REFRESH);
    const [rules, alerts, hist] = await Promise.all([this.api.call('list-alert-rules'),
      this.api.call('list-alerts'), this.api.call('alert-history')]);
    this.rules = new Map(rules.map((r) => [r.id, r]));
    this.drawFiring(alerts);
    this.drawRules(rules);
    $('alert-history').replaceChildren(...hist.slice(0, 200).map((e) => {
      const tr = el('tr', {class: `state-${e.state}`});
      // A route announced, withdrawn or refused says which, and why, where values go.
      const values = e.mitigation ? el('td', {class: 'mitigation'}, mitigationText(e.mitigation))
        : el('td', {class: 'num'}, valuesText(e.values));
      tr.append(el('td', {}, formatDate(e.at)), el('td', {}, this.name(e.rule)), el('td', {}, groupText(e.group)),
        el('td', {}, e.state), values);
      return tr;
    }));
    $('alert-history-none').hidden = hist.length > 0;
    for (const id of ['alert-firing', 'alert-rules', 'alert-history']) labelCells($(id));
    this.badge();
  }

  drawFiring(alerts) {
    $('alert-firing').replaceChildren(...alerts.map((a) => {
      const tr = el('tr', {class: `state-${a.state}`, 'data-rule': a.rule});
      const actions = el('td');
      if (!a.acknowledged) {
        const ack = el('button', {type: 'button', class: 'btn small'}, 'Acknowledge');
        ack.addEventListener('click', () => this.act('acknowledge-alert', {rule: a.rule, group: a.group}));
        actions.append(ack);
      }
      if (this.mayChange(this.rules.get(a.rule))) {
        const mute = el('button', {type: 'button', class: 'btn small ghost'}, 'Silence 1 h');
        mute.addEventListener('click', () => this.act('silence-alert',
          {rule: a.rule, group: a.group, until: new Date(Date.now() + 3600e3).toISOString()}));
        actions.append(' ', mute);
      }
      tr.append(el('td', {}, a.name), el('td', {}, a.severity), el('td', {}, groupText(a.group)),
        el('td', {}, a.state + (a.acknowledged ? ' (acknowledged)' : '')), el('td', {}, formatDate(a.since)),
        el('td', {class: 'num'}, valuesText(a.values)), actions);
      return tr;
    }));
    $('alert-firing-none').hidden = alerts.length > 0;
  }

  drawRules(rules) {
    $('alert-rules').replaceChildren(...rules.map((r) => {
      const tr = el('tr', {'data-rule': r.id});
      const channels = el('td');
      for (const c of r.notify) {
        if (c.bgp) {
          channels.append(el('span', {class: 'badge bgp'}, `BGP ${c.bgp}`), ' ');
          continue;
        }
        const target = c.webhook || `mailto:${c.email}`;
        const st = r.channels.find((s) => s.target === target);
        const s = el('span', {class: `badge ${st && !st.ok ? 'failing' : ''}`, title: st?.error || ''},
          (c.webhook ? new URL(c.webhook).host : c.email) + (st && !st.ok ? ' failing' : ''));
        channels.append(s, ' ');
      }
      const query = el('td');
      query.append(el('code', {}, r.query));
      // The last evaluation: when, or why it failed, or what the rule cannot do (a bgp
      // channel on a node without -bgp).
      const check = r.error ? el('td', {class: 'rule-error'}, `Failed: ${r.error}`)
        : r.warning ? el('td', {class: 'rule-error rule-warning'}, `Warning: ${r.warning}`)
          : el('td', {class: 'rule-checked'}, r.evaluated ? formatDate(r.evaluated) : 'Not yet');
      const actions = el('td');
      if (this.mayChange(r)) {
        const del = el('button', {type: 'button', class: 'btn small ghost danger-text delete-rule'}, 'Delete');
        del.addEventListener('click', () => confirmAction('Delete rule?',
          `“${r.name}” will be deleted with its alerts; its history stays.`, () => this.act('delete-alert-rule', {id: r.id})));
        actions.append(del);
      }
      tr.append(el('td', {}, r.name), query, el('td', {}, `${r.interval} / ${r.for}`),
        el('td', {}, r.severity), channels, el('td', {}, r.owner), check, actions);
      return tr;
    }));
    $('alert-rules-none').hidden = rules.length > 0;
  }

  // mayChange tells whether the user may delete or silence the rule: their own, or any for an
  // administrator.
  mayChange(rule) {
    const me = this.me();
    return Boolean(rule) && (me.admin || rule.owner === me.user);
  }

  async act(fn, args) {
    try {
      await this.api.call(fn, args);
      await this.refresh();
    } catch (e) {
      if (e.code !== AUTH_NEEDED) $('alert-error').textContent = e.message;
      $('alert-error').hidden = e.code === AUTH_NEEDED;
    }
  }

  async create(ev) {
    ev.preventDefault();
    const notify = [];
    if ($('alert-webhook').value) notify.push({webhook: $('alert-webhook').value, secret: $('alert-secret').value});
    if ($('alert-email').value) notify.push({email: $('alert-email').value});
    if ($('alert-bgp').value) notify.push({bgp: $('alert-bgp').value});
    const args = {name: $('alert-name').value, query: $('alert-query').value, severity: $('alert-severity').value, notify};
    if ($('alert-interval').value) args.interval = $('alert-interval').value;
    if ($('alert-for').value) args.for = $('alert-for').value;
    await busy('alert-create', 'alert-form-error', async () => {
      await this.api.call('create-alert-rule', args);
      $('alert-form').reset();
      await this.refresh();
    });
  }
}

function groupText(g) {
  return g.length ? g.join(' · ') : '(all)';
}

function valuesText(vs) {
  return vs.map((v) => (v === null ? 'null' : v.toLocaleString('en'))).join(', ');
}

// mitigationText describes a route of the history: "blackhole 198.51.100.7/32 via 192.0.2.1".
function mitigationText(m) {
  let s = `${m.bgp} ${m.prefix}`;
  if (m.protocol) s += ` protocol ${m.protocol}`;
  if (m.port) s += ` port ${m.port}`;
  if (m.next_hop) s += ` via ${m.next_hop}`;
  return m.reason ? `${s} (${m.reason})` : s;
}
