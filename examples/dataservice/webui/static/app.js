// app.js: the page's views: sign-in, the dashboard list, a dashboard and its live widgets, and
// the editors of dashboards and widgets; account.js and admin.js hold the other views. Routes
// are in the URL fragment: #/ is the list, #/d/<id> a dashboard, #/keys, #/password, #/users
// and #/settings the views of the account menu.

import {API, AUTH_NEEDED} from './api.js';
import {Account} from './account.js';
import {Admin, isAdmin} from './admin.js';
import * as charts from './charts.js';
import {$, el, busy, confirmAction, showFormError, showBanner, hideBanner, formatDate} from './ui.js';

const LIVE_INTERVAL = 5; // seconds between the answers of a followed query

// EXAMPLES are the query shown in an empty editor, per kind.
const EXAMPLES = {
  number: 'traffic',
  timeseries: 'traffic BY time(60)',
  bar: 'traffic BY application TOP 10',
  pie: 'traffic BY protocol',
  table: 'traffic, packets BY server.ip TOP 20',
};

const api = new API({
  live: new URLSearchParams(location.search).get('live') || 'auto',
  onAuthNeeded: () => showLogin('Your session has ended: please sign in again.'),
  onLiveState: setLiveState,
});

// page holds what is on screen: the open dashboard and its widgets' live queries.
const page = {
  view: null,
  dashboard: null,
  widgets: new Map(), // widget id -> {widget, card, body, foot, shapes, results, stop}
  liveState: null, // of the live connection: "live", "reconnecting" or "off"
  editing: null, // the widget being edited, or null for a new one
  fields: null,
  admin: null, // whether the signed-in user is an administrator; null until known
};

const account = new Account(api);
const admin = new Admin(api, () => sessionStorage.getItem('user') || '');

// MENU_VIEWS are the routes of the account menu: the crumb and the view each shows.
const MENU_VIEWS = {
  '#/keys': {crumb: 'API keys', view: 'keys-view', show: () => account.showKeys()},
  '#/password': {crumb: 'Password', view: 'password-view', show: () => account.showPassword()},
  '#/users': {crumb: 'Users', view: 'users-view', show: () => admin.showUsers(), adminOnly: true},
  '#/settings': {crumb: 'Settings', view: 'settings-view', show: () => admin.showSettings(), adminOnly: true},
};

// ---- Views ---------------------------------------------------------------------------------

function showView(id) {
  for (const v of document.querySelectorAll('.view')) v.hidden = v.id !== id;
  page.view = id;
}

// showLogin shows the sign-in form with a message: an error, or a notice when notice is true.
function showLogin(message, notice = false) {
  stopLive();
  api.close();
  page.admin = null;
  for (const d of document.querySelectorAll('dialog[open]')) d.close();
  $('topbar').hidden = true;
  hideBanner();
  showView('login-view');
  showFormError('login-error', message || '');
  $('login-error').classList.toggle('notice', notice);
  $('login-password').value = '';
  $(($('login-user').value ? 'login-password' : 'login-user')).focus();
}

async function route() {
  hideBanner();
  $('account-menu').open = false;
  const m = location.hash.match(/^#\/d\/([\w-]+)$/);
  try {
    if (m) await openDashboard(m[1]);
    else if (MENU_VIEWS[location.hash]) await showMenuView(MENU_VIEWS[location.hash]);
    else await showList();
  } catch (e) {
    if (e.code !== AUTH_NEEDED) showBanner(e.message);
  }
}

async function showList() {
  stopLive();
  const list = await api.call('list-dashboards');
  await signedIn();
  setCrumbs([]);
  const box = $('dash-list');
  box.replaceChildren(...list.map((d) => {
    const a = el('a', {class: 'card dash-card', href: `#/d/${d.id}`});
    a.append(el('h2', {}, d.title), el('p', {class: 'muted'}, d.description || 'No description'),
      el('div', {class: 'when'}, `Updated ${formatDate(d.updated)}`));
    return a;
  }));
  $('dash-empty').hidden = list.length > 0;
  showView('list-view');
}

async function openDashboard(id) {
  stopLive();
  const d = await api.call('get-dashboard', {id});
  await signedIn();
  page.dashboard = d;
  showDashboardHead(d);
  $('widget-grid').replaceChildren();
  $('widget-empty').hidden = d.widgets.length > 0;
  showView('dashboard-view');
  for (const w of d.widgets) addWidgetCard(w);
}

// showDashboardHead shows the open dashboard's title and description.
function showDashboardHead(d) {
  setCrumbs([d.title]);
  $('dashboard-title').textContent = d.title;
  $('dashboard-description').textContent = d.description;
  $('dashboard-description').hidden = !d.description;
}

// showMenuView shows a view of the account menu; users and settings only to administrators.
async function showMenuView(v) {
  stopLive();
  try {
    await v.show();
  } catch (e) {
    if (e.code !== 'PERMISSION-DENIED') throw e; // a view for administrators: signedIn tells
  }
  await signedIn();
  if (v.adminOnly && !page.admin) {
    showView('list-view');
    location.replace('#/');
    return;
  }
  setCrumbs([v.crumb]);
  showView(v.view);
}

// signedIn shows the top bar with the user's name and menu, learning once per session whether
// the user is an administrator (who sees Users in the menu).
async function signedIn() {
  const user = sessionStorage.getItem('user') || '';
  $('topbar').hidden = false;
  $('user-name').textContent = user || 'Account';
  $('password-user').value = user; // for password managers
  if (page.admin === null) {
    try {
      page.admin = await isAdmin(api, user);
    } catch (e) {
      if (e.code === AUTH_NEEDED) throw e;
      page.admin = false;
    }
  }
  $('users-link').hidden = !page.admin;
  $('settings-link').hidden = !page.admin;
}

function setCrumbs(names) {
  const items = [el('a', {href: '#/'}, 'Dashboards')];
  for (const n of names) items.push(el('b', {}, '/'), el('span', {}, n));
  $('crumbs').replaceChildren(...items);
}

function setLiveState(state) {
  page.liveState = state;
  const s = $('live-state');
  s.hidden = !state || state === 'off' || page.widgets.size === 0;
  s.className = `live-state ${state === 'live' ? 'live' : 'down'}`;
  s.textContent = state === 'live' ? 'Live' : 'Reconnecting…';
}

// ---- Widgets -------------------------------------------------------------------------------

// addWidgetCard adds the widget's card to the grid, or puts it in place of the card of the
// same widget, and starts its live query.
function addWidgetCard(w) {
  const old = page.widgets.get(w.id);
  const entry = widgetCard(w);
  if (old) {
    old.stop?.();
    old.card.replaceWith(entry.card);
  } else {
    $('widget-grid').append(entry.card);
  }
  page.widgets.set(w.id, entry);
  $('widget-empty').hidden = true;
  startWidget(entry);
  setLiveState(page.liveState);
}

function removeWidgetCard(id) {
  const entry = page.widgets.get(id);
  if (!entry) return;
  entry.stop?.();
  entry.card.remove();
  page.widgets.delete(id);
  $('widget-empty').hidden = page.widgets.size > 0;
}

function widgetCard(w) {
  const card = el('article', {class: 'card widget', 'data-id': w.id, 'data-kind': w.kind});
  card.classList.toggle('wide', w.kind !== 'number');
  const edit = el('button', {type: 'button', class: 'btn ghost edit-widget', title: 'Edit widget'}, 'Edit');
  const del = el('button', {type: 'button', class: 'btn ghost delete-widget', title: 'Delete widget'}, 'Delete');
  edit.addEventListener('click', () => openWidgetEditor(page.widgets.get(w.id)?.widget || w));
  del.addEventListener('click', () => confirmAction('Delete widget?', `“${w.title}” will be removed from this dashboard.`,
    async () => {
      await api.call('delete-widget', {id: w.id});
      removeWidgetCard(w.id);
    }));
  const tools = el('div', {class: 'widget-tools'});
  tools.append(edit, del);
  const head = el('div', {class: 'widget-head'});
  head.append(el('h3', {title: w.title}, w.title), tools);
  const body = el('div', {class: 'widget-body'});
  body.append(el('div', {class: 'no-data'}, 'Loading…'));
  const foot = el('div', {class: 'widget-foot'});
  card.append(head, body, foot);
  return {widget: w, card, body, foot, results: null, stop: null};
}

function startWidget(entry) {
  const w = entry.widget;
  const expr = w.queries.join(';\n');
  entry.shapes = w.queries.flatMap((q) => charts.describeQuery(q));
  entry.stop = api.follow('query', {expr, follow: true, interval: LIVE_INTERVAL}, {
    onChunk: (chunk) => {
      entry.results = chunk.result;
      drawWidget(entry);
      const period = chunk.result[0]?.meta?.accumulated_time;
      entry.foot.replaceChildren(
        el('span', {}, period ? `Last ${formatPeriod(period)}` : ''),
        el('span', {class: 'updated'}, chunk.progress < 1 ? `Loading ${Math.round(chunk.progress * 100)} %`
          : `Updated ${charts.formatTime(Date.now() / 1000, true)}`));
    },
    onError: (err) => {
      if (err.code === AUTH_NEEDED) return;
      entry.body.replaceChildren(el('div', {class: 'widget-error'}, err.message));
    },
  });
}

function drawWidget(entry) {
  if (!entry.results) return;
  const w = entry.widget;
  charts.render(entry.body, w.kind, entry.results, entry.shapes, w.options?.unit || '', $('tooltip'));
}

function stopLive() {
  for (const entry of page.widgets.values()) entry.stop?.();
  page.widgets.clear();
  page.dashboard = null;
  $('live-state').hidden = true;
  $('tooltip').hidden = true;
}

function formatPeriod(s) {
  if (s % 86400 === 0) return s === 86400 ? 'day' : `${s / 86400} days`;
  if (s % 3600 === 0) return s === 3600 ? 'hour' : `${s / 3600} hours`;
  if (s % 60 === 0) return `${s / 60} minutes`;
  return `${s} s`;
}

// ---- Dashboard editor ----------------------------------------------------------------------

function openDashboardEditor(d) {
  $('dashboard-dialog-title').textContent = d ? 'Edit dashboard' : 'New dashboard';
  $('dashboard-title-input').value = d?.title || '';
  $('dashboard-description-input').value = d?.description || '';
  showFormError('dashboard-error', '');
  $('dashboard-form').dataset.id = d?.id || '';
  $('dashboard-dialog').showModal();
}

async function saveDashboard(ev) {
  ev.preventDefault();
  const id = $('dashboard-form').dataset.id;
  const args = {title: $('dashboard-title-input').value.trim(), description: $('dashboard-description-input').value.trim()};
  await busy('dashboard-save', 'dashboard-error', async () => {
    const d = id ? await api.call('update-dashboard', {id, ...args}) : await api.call('create-dashboard', args);
    $('dashboard-dialog').close();
    if (id) {
      Object.assign(page.dashboard, {title: d.title, description: d.description});
      showDashboardHead(d);
    } else {
      location.hash = `#/d/${d.id}`;
    }
  });
}

// ---- Widget editor -------------------------------------------------------------------------

function openWidgetEditor(w) {
  page.editing = w || null;
  $('widget-dialog-title').textContent = w ? 'Edit widget' : 'New widget';
  $('widget-title').value = w?.title || '';
  $('widget-kind').value = w?.kind || 'number';
  $('widget-unit').value = w?.options?.unit || '';
  $('widget-queries').replaceChildren();
  for (const q of w?.queries || ['']) addQueryField(q);
  showFormError('widget-error', '');
  loadFields();
  $('widget-dialog').showModal();
  $('widget-title').focus();
}

function addQueryField(text = '') {
  const box = $('widget-queries');
  const n = box.children.length + 1;
  const wrap = el('div', {class: 'query'});
  const label = el('label', {}, `Query ${n}`);
  const area = el('textarea', {class: 'query-input', rows: 2, spellcheck: 'false', maxlength: 10000,
    placeholder: EXAMPLES[$('widget-kind').value]});
  area.value = text;
  area.addEventListener('input', () => clearQueryError(wrap));
  label.append(area);
  wrap.append(label);
  if (n > 1) {
    const remove = el('button', {type: 'button', class: 'btn ghost small remove-query'}, 'Remove');
    remove.addEventListener('click', () => { wrap.remove(); renumberQueries(); });
    wrap.append(remove);
  }
  box.append(wrap);
  return area;
}

function renumberQueries() {
  [...$('widget-queries').children].forEach((q, i) => {
    q.querySelector('label').firstChild.textContent = `Query ${i + 1}`;
  });
}

function clearQueryError(wrap) {
  wrap.querySelector('.query-error')?.remove();
  wrap.querySelector('textarea').classList.remove('invalid');
}

// showQueryError marks the query a QUERY-SYNTAX error names and shows where it is wrong.
function showQueryError(err) {
  const wraps = [...$('widget-queries').children];
  const wrap = wraps[err.attrs.index ?? 0] || wraps[0];
  clearQueryError(wrap);
  const area = wrap.querySelector('textarea');
  area.classList.add('invalid');
  const text = area.value;
  const pos = Math.max(0, Math.min(Number(err.attrs.position) || 0, text.length));
  // The line of the error, with a caret under the position.
  const start = text.lastIndexOf('\n', pos - 1) + 1;
  const end = text.indexOf('\n', pos) < 0 ? text.length : text.indexOf('\n', pos);
  const box = el('div', {class: 'query-error', role: 'alert'}, err.message);
  box.append(el('pre', {}, `${text.slice(start, end)}\n${' '.repeat(pos - start)}^`));
  wrap.querySelector('label').after(box);
  area.focus();
  area.setSelectionRange(pos, pos);
}

async function saveWidget(ev) {
  ev.preventDefault();
  const queries = [...document.querySelectorAll('#widget-queries textarea')].map((t) => t.value.trim() || t.placeholder);
  const unit = $('widget-unit').value;
  const args = {
    title: $('widget-title').value.trim(),
    kind: $('widget-kind').value,
    queries,
    options: unit ? {unit} : {},
  };
  const w = page.editing;
  await busy('widget-save', 'widget-error', async () => {
    let saved;
    try {
      saved = w ? await api.call('update-widget', {id: w.id, ...args})
        : await api.call('create-widget', {dashboard: page.dashboard.id, ...args});
    } catch (e) {
      if (e.code === 'QUERY-SYNTAX') {
        showQueryError(e);
        return;
      }
      throw e;
    }
    $('widget-dialog').close();
    addWidgetCard(saved);
  });
}

async function loadFields() {
  if (page.fields) return;
  try {
    page.fields = await api.call('list-fields');
  } catch {
    return; // an older API without list-fields: the help stays short
  }
  $('fields-list').replaceChildren(...page.fields.flatMap((f) => [
    el('code', {}, f.name), el('span', {class: 'muted'}, `${f.kind}: ${f.description}`),
  ]));
}

// ---- Sign-in -------------------------------------------------------------------------------

async function login(ev) {
  ev.preventDefault();
  $('login-error').classList.remove('notice');
  const user = $('login-user').value.trim();
  await busy('login-submit', 'login-error', async () => {
    await api.call('login', {user, password: $('login-password').value}); // the cookie carries the session
    $('login-password').value = '';
    sessionStorage.setItem('user', user);
    await route();
  });
}

async function logout() {
  try {
    await api.call('logout');
  } catch (e) {
    if (e.code !== AUTH_NEEDED) showBanner(e.message);
  }
  sessionStorage.removeItem('user');
  showLogin('You have signed out.', true);
}

// ---- Start ---------------------------------------------------------------------------------

$('login-form').addEventListener('submit', login);
$('logout').addEventListener('click', logout);
$('banner-close').addEventListener('click', hideBanner);
$('new-dashboard').addEventListener('click', () => openDashboardEditor(null));
$('rename-dashboard').addEventListener('click', () => openDashboardEditor(page.dashboard));
$('delete-dashboard').addEventListener('click', () => {
  const d = page.dashboard;
  confirmAction('Delete dashboard?', `“${d.title}” and its ${page.widgets.size} widget(s) will be deleted.`, async () => {
    await api.call('delete-dashboard', {id: d.id});
    location.hash = '#/';
  });
});
$('add-widget').addEventListener('click', () => openWidgetEditor(null));
$('add-query').addEventListener('click', () => addQueryField().focus());
$('widget-kind').addEventListener('change', () => {
  for (const t of document.querySelectorAll('#widget-queries textarea')) t.placeholder = EXAMPLES[$('widget-kind').value];
});
$('dashboard-form').addEventListener('submit', saveDashboard);
$('widget-form').addEventListener('submit', saveWidget);
for (const b of document.querySelectorAll('[data-close]')) {
  b.addEventListener('click', () => b.closest('dialog').close());
}
addEventListener('hashchange', route);
$('account-menu').addEventListener('click', (ev) => {
  if (ev.target.closest('a')) $('account-menu').open = false;
});
addEventListener('click', (ev) => {
  if (!$('account-menu').contains(ev.target)) $('account-menu').open = false;
});
let resizeTimer;
addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => page.widgets.forEach(drawWidget), 150);
});
route();
