// account.js: the signed-in user's own account: API keys (#/keys) and password (#/password).
//
// A new API key is shown once, in a dialog, and never kept by the page: closing the dialog
// removes it from the page.

import {$, el, busy, confirmAction, formatDate, showFormError} from './ui.js';

// Account shows and handles the account views over api.
export class Account {
  constructor(api) {
    this.api = api;
    $('new-key').addEventListener('click', () => this.openKeyForm());
    $('key-form').addEventListener('submit', (ev) => this.createKey(ev));
    $('key-copy').addEventListener('click', () => this.copyKey());
    // However the dialog closes (Done, Escape), the key leaves the page.
    $('key-shown-dialog').addEventListener('close', () => {
      $('key-value').value = '';
      showFormError('key-copied', '');
    });
    $('password-form').addEventListener('submit', (ev) => this.changePassword(ev));
  }

  // showKeys lists the caller's API keys.
  async showKeys() {
    const keys = await this.api.call('list-api-keys');
    $('keys-body').replaceChildren(...keys.map((k) => {
      const revoke = el('button', {type: 'button', class: 'btn ghost small danger-text revoke-key'}, 'Revoke');
      revoke.addEventListener('click', () => confirmAction('Revoke API key?',
        `Programs using “${k.name}” will be refused from now on. This cannot be undone.`,
        async () => {
          await this.api.call('revoke-api-key', {name: k.name});
          await this.showKeys();
        }, 'Revoke'));
      const tr = el('tr', {'data-name': k.name});
      tr.append(el('td', {class: 'name'}, k.name), el('td', {}, formatDate(k.created)),
        el('td', {}, k.last_used ? formatDate(k.last_used) : 'Never'), actionCell(revoke));
      return tr;
    }));
    $('keys-empty').hidden = keys.length > 0;
    $('keys-table').hidden = keys.length === 0;
  }

  openKeyForm() {
    $('key-name').value = '';
    showFormError('key-error', '');
    $('key-dialog').showModal();
    $('key-name').focus();
  }

  async createKey(ev) {
    ev.preventDefault();
    const name = $('key-name').value.trim();
    await busy('key-save', 'key-error', async () => {
      const key = await this.api.call('create-api-key', {name});
      $('key-dialog').close();
      $('key-shown-name').textContent = name;
      $('key-value').value = key;
      $('key-shown-dialog').showModal();
      $('key-value').select();
      await this.showKeys();
    }, (e) => e.code === 'CONFLICT' ? `You already have a key named “${name}”.` : argumentError(e, {name: 'Name'}));
  }

  async copyKey() {
    const input = $('key-value');
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      input.select(); // no clipboard access: the key is selected for the user to copy
      showFormError('key-copied', 'Press Ctrl+C (⌘C) to copy the selected key.', true);
      return;
    }
    showFormError('key-copied', 'Copied to the clipboard.', true);
  }

  // showPassword shows an empty password form.
  showPassword() {
    $('password-form').reset();
    showFormError('password-error', '');
  }

  async changePassword(ev) {
    ev.preventDefault();
    const old = $('password-old').value;
    const next = $('password-new').value;
    if (next !== $('password-confirm').value) {
      showFormError('password-error', 'The new password and its confirmation differ.');
      $('password-confirm').focus();
      return;
    }
    await busy('password-save', 'password-error', async () => {
      await this.api.call('change-password', {old, new: next});
      $('password-form').reset();
      showFormError('password-error', 'Password changed. Your other sessions have ended; API keys stay valid.', true);
    }, (e) => {
      if (e.code === 'INVALID-CREDENTIALS') return 'The current password is wrong (INVALID-CREDENTIALS).';
      if (e.code === 'RATE-LIMITED') return `Too many wrong passwords: try again in ${e.attrs.retry_after} s (RATE-LIMITED).`;
      return argumentError(e, {old: 'Current password', new: 'New password'});
    });
  }
}

// argumentError describes an INVALID-ARGUMENT with the label of the field it names; '' for any
// other error.
export function argumentError(e, labels) {
  if (e.code !== 'INVALID-ARGUMENT') return '';
  const name = labels[e.attrs.name] || e.attrs.name;
  return `${name}: ${e.attrs.reason} (INVALID-ARGUMENT)`;
}

// actionCell is the last cell of a row, holding its buttons.
export function actionCell(...buttons) {
  const td = el('td', {class: 'row-actions'});
  td.append(...buttons);
  return td;
}
