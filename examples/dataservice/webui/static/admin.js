// admin.js: the service's users (#/users) and settings (#/settings), administrators only, as
// list-users and get-config allow.

import {argumentError, actionCell} from './account.js';
import {$, el, busy, confirmAction, formatDate, showFormError} from './ui.js';

// SETTINGS are the configuration keys the page explains, with their defaults; a key get-config
// answers beyond them shows with its name only.
const SETTINGS = {
  default_period: {label: 'Default query period', help: 'Length of a query’s period when it gives no SINCE.', def: '1h'},
  retention: {label: 'Retention', help: 'How long traffic records are kept.', def: '30d'},
  session_idle: {label: 'Session idle timeout', help: 'How long a session stays valid without a call; at most the session lifetime.', def: '1h'},
  session_max: {label: 'Session lifetime', help: 'The longest a session stays valid after sign-in.', def: '24h'},
  rate_limit: {label: 'Call rate limit', help: 'Calls per second one user may make, in bursts of twice as many; 0 turns the limit off.', def: '200'},
};

// shown is a configuration value as its field shows it: a string as is, a number as digits.
const shown = (v) => (typeof v === 'string' ? v : JSON.stringify(v));

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
  }

  // showUsers lists the users.
  async showUsers() {
    const users = await this.api.call('list-users');
    $('users-body').replaceChildren(...users.map((u) => {
      const tr = el('tr', {'data-user': u.user});
      const names = {'administrator': 'Administrator', 'user': 'User', 'read-only': 'Read-only'};
      const role = el('span', {class: `badge${u.admin ? ' admin' : ''}`}, names[u.role] || u.role);
      let action;
      if (u.user === this.user()) {
        action = el('span', {class: 'muted small'}, 'You');
      } else {
        action = el('button', {type: 'button', class: 'btn ghost small danger-text delete-user'}, 'Delete');
        action.addEventListener('click', () => confirmAction('Delete user?',
          `“${u.user}” will be deleted, and their sessions and API keys end at once.`,
          async () => {
            await this.api.call('delete-user', {user: u.user});
            await this.showUsers();
          }));
      }
      const roleCell = el('td');
      roleCell.append(role);
      tr.append(el('td', {class: 'name'}, u.user), roleCell, el('td', {}, formatDate(u.created)), actionCell(action));
      return tr;
    }));
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
    const args = {user, password: $('user-password-input').value, admin: $('user-admin-input').checked};
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
      values[input.dataset.key] = v === '' ? null : typeof old === 'number' && /^\d+$/.test(v) ? Number(v) : v;
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
