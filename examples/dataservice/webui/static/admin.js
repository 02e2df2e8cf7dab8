// admin.js: the service's users and their roles (#/users), the audit trail (#/audit) and
// settings (#/settings), administrators only, as list-users, list-audit and get-config allow.

import {argumentError, actionCell} from './account.js';
import {AUTH_NEEDED} from './api.js';
import {$, el, busy, confirmAction, formatDate, showFormError} from './ui.js';

// SETTINGS are the configuration keys the page explains, with their defaults; a key get-config
// answers beyond them shows with its name only.
const SETTINGS = {
  default_period: {label: 'Default query period', help: 'Length of a query’s period when it gives no SINCE.', def: '1h'},
  retention: {label: 'Retention', help: 'How long traffic records are kept.', def: '30d'},
  session_idle: {label: 'Session idle timeout', help: 'How long a session stays valid without a call; at most the session lifetime.', def: '1h'},
  session_max: {label: 'Session lifetime', help: 'The longest a session stays valid after sign-in.', def: '24h'},
  rate_limit: {label: 'Call rate limit', help: 'Calls per second one user may make, in bursts of twice as many; 0 turns the limit off.', def: '200'},
  snmp: {label: 'SNMP polling', help: 'Exporters whose names and interfaces are polled (JSON); communities and passwords show as (hidden), and (hidden) keeps them.', def: ''},
  exporter_names: {label: 'Exporter names', help: 'Static names of exporters and interfaces, where SNMP names nothing (JSON).', def: ''},
};

// shown is a configuration value as its field shows it: a string as is, a number as digits.
const shown = (v) => (typeof v === 'string' ? v : JSON.stringify(v));

// parseJSON reads a JSON key's value (snmp, exporter_names) as typed; text that is not JSON
// goes as is, for the server to explain.
function parseJSON(v) {
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

// ROLES are the roles set-role and create-user take, with their names in the page.
const ROLES = {'read-only': 'Read-only', 'user': 'User', 'administrator': 'Administrator'};

// AUDIT_PAGE is how many events of the audit trail the page asks for at a time.
const AUDIT_PAGE = 50;

// describeDetails writes an audit event's details (a JSON object) as "key: value" pairs.
export function describeDetails(d) {
  if (!d || typeof d !== 'object') return d == null ? '' : String(d);
  return Object.entries(d).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
}

// whoami asks the server who the signed-in user is: {user, role, admin, token, key_name,
// expires, ends} (the function whoami, API 1.2), rather than inferring it from what other calls
// refuse.
export function whoami(api) {
  return api.call('whoami');
}

// isAdmin tells whether the signed-in user is an administrator (from whoami).
export async function isAdmin(api) {
  return (await whoami(api)).role === 'administrator';
}

// Admin shows and handles the users and settings views over api; user() gives the signed-in
// user's name.
export class Admin {
  constructor(api, user) {
    this.api = api;
    this.user = user;
    this.config = {};
    $('new-user').addEventListener('click', () => this.openUserForm());
    $('user-form').addEventListener('submit', (ev) => this.createUser(ev));
    $('settings-form').addEventListener('submit', (ev) => this.saveSettings(ev));
    $('audit-more').addEventListener('click', () => this.showAudit(true));
    this.audit = []; // the events shown, newest first
  }

  // showUsers lists the users, each other user's role in a select that sets it (set-role).
  async showUsers() {
    const users = await this.api.call('list-users');
    showFormError('users-error', '');
    $('users-body').replaceChildren(...users.map((u) => {
      const tr = el('tr', {'data-user': u.user});
      const roleCell = el('td');
      let action;
      if (u.user === this.user()) {
        // Nobody changes their own role or deletes themselves.
        roleCell.append(el('span', {class: `badge${u.admin ? ' admin' : ''}`}, ROLES[u.role] || u.role));
        action = el('span', {class: 'muted small'}, 'You');
      } else {
        roleCell.append(this.roleSelect(u));
        const keys = el('button', {type: 'button', class: 'btn ghost small user-keys'}, 'API keys');
        keys.addEventListener('click', () => this.showUserKeys(u.user));
        const del = el('button', {type: 'button', class: 'btn ghost small danger-text delete-user'}, 'Delete');
        del.addEventListener('click', () => confirmAction('Delete user?',
          `“${u.user}” will be deleted, and their sessions and API keys end at once.`,
          async () => {
            await this.api.call('delete-user', {user: u.user});
            await this.showUsers();
          }));
        action = [keys, del];
      }
      tr.append(el('td', {class: 'name'}, u.user), roleCell, el('td', {}, formatDate(u.created)), actionCell(...[action].flat()));
      return tr;
    }));
  }

  // showUserKeys opens a dialog listing another user's API keys (list-api-keys with user), each
  // with a button that revokes it (revoke-api-key with user). Keys are made by their owners
  // only: an administrator sees and revokes them, never their values.
  async showUserKeys(user) {
    $('user-keys-user').textContent = user;
    showFormError('user-keys-error', '');
    const keys = await this.api.call('list-api-keys', {user});
    $('user-keys-body').replaceChildren(...keys.map((k) => {
      const revoke = el('button', {type: 'button', class: 'btn ghost small danger-text revoke-user-key'}, 'Revoke');
      revoke.addEventListener('click', async () => {
        revoke.disabled = true;
        try {
          await this.api.call('revoke-api-key', {name: k.name, user});
          await this.showUserKeys(user);
          showFormError('user-keys-error', `“${k.name}” is revoked: programs using it are refused from now on.`, true);
        } catch (e) {
          revoke.disabled = false;
          if (e.code !== AUTH_NEEDED) showFormError('user-keys-error', e.message);
        }
      });
      const tr = el('tr', {'data-name': k.name});
      tr.append(el('td', {class: 'name'}, k.name), el('td', {}, formatDate(k.created)),
        el('td', {}, k.last_used ? formatDate(k.last_used) : 'Never'), actionCell(revoke));
      return tr;
    }));
    $('user-keys-empty').hidden = keys.length > 0;
    $('user-keys-table').hidden = keys.length === 0;
    if (!$('user-keys-dialog').open) $('user-keys-dialog').showModal();
  }

  // roleSelect is a select of user u's role that calls set-role when changed, and goes back to
  // the role the server holds when it refuses.
  roleSelect(u) {
    const sel = el('select', {class: 'role-select', 'aria-label': `Role of ${u.user}`});
    for (const [role, name] of Object.entries(ROLES)) sel.append(el('option', {value: role}, name));
    sel.value = u.role;
    let held = u.role;
    sel.addEventListener('change', async () => {
      sel.disabled = true;
      showFormError('users-error', '');
      try {
        const info = await this.api.call('set-role', {user: u.user, role: sel.value});
        held = info.role || sel.value;
        showFormError('users-error', `“${u.user}” is now ${ROLES[held] || held}.`, true);
      } catch (e) {
        sel.value = held;
        if (e.code !== AUTH_NEEDED) showFormError('users-error', e.message);
      } finally {
        sel.disabled = false;
      }
    });
    return sel;
  }

  // showAudit shows the newest events of the audit trail; with older, the page of events before
  // the oldest shown (list-audit's before), added below them.
  async showAudit(older = false) {
    const args = {limit: AUDIT_PAGE};
    if (older && this.audit.length) args.before = Math.min(...this.audit.map((e) => e.id));
    const events = await this.api.call('list-audit', args);
    this.audit = older ? [...this.audit, ...events] : events;
    const rows = (older ? events : this.audit).map((e) => {
      const who = e.key ? `${e.user} (key ${e.key})` : e.user;
      const tr = el('tr', {'data-id': String(e.id)});
      const action = el('td', {class: 'action'});
      action.append(el('code', {}, e.action));
      tr.append(el('td', {class: 'time'}, formatDate(e.time)), el('td', {class: 'name'}, who), action,
        el('td', {class: 'address'}, e.address), el('td', {class: 'details'}, describeDetails(e.details)));
      return tr;
    });
    if (older) $('audit-body').append(...rows);
    else $('audit-body').replaceChildren(...rows);
    const end = events.length < AUDIT_PAGE;
    $('audit-more').hidden = end;
    $('audit-empty').hidden = this.audit.length > 0;
    $('audit-table').hidden = this.audit.length === 0;
    $('audit-count').textContent = this.audit.length === 0 ? ''
      : `Showing ${this.audit.length} event${this.audit.length === 1 ? '' : 's'}, newest first${end ? ': the oldest kept' : ''}.`;
  }

  openUserForm() {
    $('user-form').reset();
    showFormError('user-error', '');
    $('user-dialog').showModal();
    $('user-name-input').focus();
  }

  async createUser(ev) {
    ev.preventDefault();
    const user = $('user-name-input').value.trim();
    const args = {user, password: $('user-password-input').value, role: $('user-role-input').value};
    await busy('user-save', 'user-error', async () => {
      await this.api.call('create-user', args);
      $('user-dialog').close();
      await this.showUsers();
    }, (e) => e.code === 'CONFLICT' ? `A user named “${user}” already exists.`
      : argumentError(e, {user: 'User name', password: 'Password'}));
  }

  // showSettings shows the configuration in its form.
  async showSettings() {
    this.config = await this.api.call('get-config');
    showFormError('settings-error', '');
    const names = [...new Set([...Object.keys(SETTINGS), ...Object.keys(this.config)])].filter((n) => n in this.config);
    $('settings-fields').replaceChildren(...names.map((name) => {
      const s = SETTINGS[name] || {label: name, help: '', def: ''};
      const row = el('div', {class: 'setting'});
      const text = el('div', {class: 'setting-text'});
      text.append(el('label', {for: `setting-${name}`}, s.label), el('code', {class: 'muted'}, name));
      if (s.help) text.append(el('p', {class: 'muted'}, s.help));
      const input = el('input', {id: `setting-${name}`, 'data-key': name, spellcheck: 'false', autocomplete: 'off',
        placeholder: s.def ? `default ${s.def}` : ''});
      input.value = shown(this.config[name]);
      input.addEventListener('input', () => input.classList.remove('invalid'));
      row.append(text, input);
      return row;
    }));
  }

  // saveSettings sets the changed keys, all or none; an emptied field goes back to its default.
  async saveSettings(ev) {
    ev.preventDefault();
    const values = {};
    for (const input of document.querySelectorAll('#settings-fields input')) {
      input.classList.remove('invalid');
      const v = input.value.trim();
      const old = this.config[input.dataset.key];
      if (v === shown(old)) continue;
      // A number key (rate_limit) takes a JSON number; anything else goes as typed, for the
      // server to explain.
      values[input.dataset.key] = v === '' ? null : typeof old === 'number' && /^\d+$/.test(v) ? Number(v)
        : typeof old === 'object' ? parseJSON(v) : v;
    }
    if (!Object.keys(values).length) {
      showFormError('settings-error', 'Nothing has changed.', true);
      return;
    }
    await busy('settings-save', 'settings-error', async () => {
      await this.api.call('set-config', {values});
      await this.showSettings();
      showFormError('settings-error', 'Settings saved.', true);
    }, (e) => {
      if (e.code !== 'INVALID-ARGUMENT') return '';
      const key = e.attrs.name;
      $(`setting-${key}`)?.classList.add('invalid');
      return `${SETTINGS[key]?.label || key} (${key}): ${e.attrs.reason}`;
    });
  }
}
