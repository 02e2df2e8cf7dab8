// app.js: the page's views: sign-in, the dashboard list, a dashboard (its widgets are in
// widgets.js) and its period, and the dashboard editor; explore.js, apiref.js, account.js and
// admin.js hold the other views. Routes are in the URL fragment: #/ is the list, #/d/<id>[?range=6h] a dashboard
// over a period, #/explore?q=... Explore, #/api the API reference, #/collector the flow
// collector's status (collector.js), #/keys, #/password, #/users, #/audit and #/settings the views of
// the account menu.

import {API, AUTH_NEEDED} from './api.js';
import {Account} from './account.js';
import {Admin, whoami} from './admin.js';
import {Zones} from './zones.js';
import {APIReference} from './apiref.js';
import {Collector} from './collector.js';
import {Alerts} from './alerts.js';
import {Explore} from './explore.js';
import {Picker, describe, fromParams, isLive, toParams} from './period.js';
import {WidgetEditor} from './widgeteditor.js';
import {Widgets} from './widgets.js';
import {$, el, busy, confirmAction, showFormError, showBanner, hideBanner, formatDate} from './ui.js';

const api = new API({
  live: new URLSearchParams(location.search).get('live') || 'auto',
  // The session ended only if there was one: a first visit just shows the form.
  onAuthNeeded: () => showLogin(page.wasSignedIn ? 'Your session has ended: please sign in again.' : ''),
  onLiveState: setLiveState,
});

// page holds what is on screen.
const page = {
  view: null,
  dashboard: null, // the open dashboard
  liveState: null, // of the live connection: "live", "reconnecting" or "off"
  fields: null, // list-fields' answer, a promise once asked
  admin: null, // whether the signed-in user is an administrator; null until known
  wasSignedIn: false, // a call succeeded with a session during this visit
};

const account = new Account(api);
const admin = new Admin(api, () => sessionStorage.getItem('user') || '');
const zones = new Zones(api);
const explore = new Explore(api, fields);
const reference = new APIReference(api);
const collector = new Collector(api);
const alerts = new Alerts(api, () => ({user: sessionStorage.getItem('user'), admin: page.admin === true}));
const widgets = new Widgets(api, fields, {
  edit: (w) => widgetEditor.open(w),
  periodHash: (p) => `#/d/${page.dashboard.id}${query(toParams(p, new URLSearchParams()))}`,
  onChange: () => setLiveState(page.liveState),
  onAnswer: () => picker.own(widgets.spans()),
});
const widgetEditor = new WidgetEditor(api, fields, {dashboard: () => page.dashboard.id, onSaved: (w) => widgets.add(w)});
const picker = new Picker('dashboard-period', (p) => { location.hash = widgets.periodHash(p); });
$('dashboard-period').append(picker.element);

// ROUTES are the views of the section bar besides dashboards: how to show each, given the
// fragment's parameters. The section bar says where the user is: no crumb repeats it.
const ROUTES = {
  '#/explore': {view: 'explore-view', show: (params) => explore.show(params)},
  '#/api': {view: 'api-view', show: (params) => reference.show(params)},
  '#/collector': {view: 'collector-view', show: () => collector.show()},
  '#/alerts': {view: 'alerts-view', show: (params) => alerts.show(params)},
};

// fields gives list-fields' answer, asked once per sign-in ([] from an API without it).
function fields() {
  page.fields ??= api.call('list-fields').catch((e) => {
    page.fields = null;
    if (e.code === AUTH_NEEDED) throw e;
    return [];
  });
  return page.fields;
}

function query(params) {
  const q = params.toString();
  return q ? `?${q}` : '';
}

// MENU_VIEWS are the routes of the account menu: the crumb and the view each shows.
const MENU_VIEWS = {
  '#/keys': {crumb: 'API keys', view: 'keys-view', show: () => account.showKeys()},
  '#/password': {crumb: 'Password', view: 'password-view', show: () => account.showPassword()},
  '#/users': {crumb: 'Users', view: 'users-view', show: () => admin.showUsers(), adminOnly: true},
  '#/audit': {crumb: 'Audit trail', view: 'audit-view', show: () => admin.showAudit(), adminOnly: true},
  '#/settings': {crumb: 'Settings', view: 'settings-view', show: () => admin.showSettings(), adminOnly: true},
  '#/zones': {crumb: 'Zones and applications', view: 'zones-view', show: () => zones.show(), adminOnly: true},
};

// ---- Views ---------------------------------------------------------------------------------

function showView(id) {
  for (const v of document.querySelectorAll('.view')) v.hidden = v.id !== id;
  page.view = id;
}

// showLogin shows the sign-in form with a message: an error, or a notice when notice is true.
// When the form shows already (a late answer of a call made without a session), it leaves what
// the user is typing alone.
function showLogin(message, notice = false) {
  if (page.view === 'login-view') return;
  stopLive();
  api.close();
  page.admin = null;
  page.fields = null;
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
  const [path, search] = location.hash.split('?');
  const params = new URLSearchParams(search || '');
  const m = path.match(/^#\/d\/([\w-]+)$/);
  for (const a of document.querySelectorAll('.sections a')) {
    const here = a.getAttribute('href') === (m ? '#/' : path || '#/');
    if (here) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  try {
    if (m) await openDashboard(m[1], fromParams(params));
    else if (MENU_VIEWS[path]) await showMenuView(MENU_VIEWS[path]);
    else if (ROUTES[path]) await showRoute(ROUTES[path], params);
    else await showList();
  } catch (e) {
    if (e.code !== AUTH_NEEDED) showBanner(e.message);
  }
}

async function showList() {
  stopLive();
  const list = await api.read('list-dashboards');
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

// openDashboard shows the dashboard over period; when it is open already, it only starts its
// widgets again over the new period.
async function openDashboard(id, period) {
  widgets.period = period;
  picker.show(period);
  $('dashboard-period-note').textContent = period ? `${describe(period)}${isLive(period) ? ', live' : ''}: every widget shows this period.` : '';
  if (page.dashboard?.id === id && page.view === 'dashboard-view') {
    widgets.restart();
    setLiveState(page.liveState);
    return;
  }
  stopLive();
  let d;
  try {
    d = await api.read('get-dashboard', {id});
  } catch (e) {
    if (e.code !== 'NOT-FOUND') throw e;
    await showList(); // not the previous dashboard, frozen under the message
    showBanner('This dashboard does not exist (any more): here are the others.');
    return;
  }
  await signedIn();
  fields().catch(() => {});
  page.dashboard = d;
  showDashboardHead(d);
  $('widget-grid').replaceChildren();
  picker.own([]);
  $('widget-empty').hidden = d.widgets.length > 0;
  showView('dashboard-view');
  for (const w of d.widgets) widgets.add(w);
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

// showRoute shows a view of ROUTES.
async function showRoute(r, params) {
  stopLive();
  await signedIn();
  setCrumbs([]);
  showView(r.view);
  await r.show(params);
}

// signedIn shows the top bar with the user's name and menu, asking the server once per session
// (whoami) who the user is and whether an administrator (who sees Users in the menu): a tab
// opened afresh knows the name too.
async function signedIn() {
  if (page.admin === null) {
    try {
      const me = await whoami(api);
      page.admin = me.admin === true;
      sessionStorage.setItem('user', me.user);
      alerts.badge(); // once per session; it asks again every 30 s
    } catch (e) {
      if (e.code === AUTH_NEEDED) throw e;
      page.admin = false;
    }
  }
  const user = sessionStorage.getItem('user') || '';
  page.wasSignedIn = true;
  $('topbar').hidden = false;
  $('user-name').textContent = user || 'Account';
  $('password-user').value = user; // for password managers
  $('users-link').hidden = !page.admin;
  $('settings-link').hidden = !page.admin;
  $('audit-link').hidden = !page.admin;
  $('zones-link').hidden = !page.admin;
}

// setCrumbs names where the user is beyond the section bar's highlighted link (which says
// Dashboards, Explore...): a dashboard's title, a view of the account menu.
function setCrumbs(names) {
  const items = [];
  for (const n of names) items.push(...(items.length ? [el('b', {}, '/')] : []), el('span', {}, n));
  $('crumbs').replaceChildren(...items);
}

function setLiveState(state) {
  page.liveState = state;
  const s = $('live-state');
  const down = state === 'reconnecting';
  s.hidden = state === 'off' || widgets.size === 0 || !isLive(widgets.period);
  s.className = `live-state ${down ? 'down' : 'live'}`;
  s.textContent = down ? 'Reconnecting…' : 'Live';
}

function stopLive() {
  widgets.stop();
  page.dashboard = null;
  $('live-state').hidden = true;
  $('tooltip').hidden = true;
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

// ---- Sign-in -------------------------------------------------------------------------------

async function login(ev) {
  ev.preventDefault();
  $('login-error').classList.remove('notice');
  const user = $('login-user').value.trim();
  await busy('login-submit', 'login-error', async () => {
    await api.call('login', {user, password: $('login-password').value}); // the cookie carries the session
    api.sessionChanged();
    $('login-password').value = '';
    sessionStorage.setItem('user', user);
    await route();
  });
}

async function logout() {
  api.sessionChanged(); // the answers still to come of this session's calls are no news now
  try {
    await api.call('logout');
  } catch (e) {
    if (e.code !== AUTH_NEEDED) showBanner(e.message);
  }
  sessionStorage.removeItem('user');
  showLogin('You have signed out.', true);
}

// ---- Theme ---------------------------------------------------------------------------------

// THEMES are the choices of the account menu's theme switch, in turn: the system's setting,
// light, dark. The choice is kept in this browser (localStorage).
const THEMES = ['system', 'light', 'dark'];

function applyTheme(theme) {
  if (!THEMES.includes(theme)) theme = 'system';
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  $('theme-switch').textContent = `Theme: ${theme}`;
  $('theme-switch').setAttribute('aria-label', `Theme: ${theme}. Change to ${THEMES[(THEMES.indexOf(theme) + 1) % 3]}`);
  return theme;
}

// ---- Start ---------------------------------------------------------------------------------

let theme = applyTheme(localStorage.getItem('theme'));
$('theme-switch').addEventListener('click', () => {
  theme = applyTheme(THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length]);
  if (theme === 'system') localStorage.removeItem('theme');
  else localStorage.setItem('theme', theme);
  widgets.redraw();
});

$('login-form').addEventListener('submit', login);
$('logout').addEventListener('click', logout);
$('banner-close').addEventListener('click', hideBanner);
$('skip').addEventListener('click', (ev) => {
  ev.preventDefault();
  $('main').focus();
});
$('new-dashboard').addEventListener('click', () => openDashboardEditor(null));
$('rename-dashboard').addEventListener('click', () => openDashboardEditor(page.dashboard));
$('delete-dashboard').addEventListener('click', () => {
  const d = page.dashboard;
  confirmAction('Delete dashboard?', `“${d.title}” and its ${widgets.size} widget(s) will be deleted.`, async () => {
    await api.call('delete-dashboard', {id: d.id});
    location.hash = '#/';
  });
});
$('add-widget').addEventListener('click', () => widgetEditor.open(null));
// Copy link puts the view's address (the dashboard and its period) on the clipboard.
$('copy-link').addEventListener('click', async () => {
  const b = $('copy-link');
  try {
    await navigator.clipboard.writeText(location.href);
    b.textContent = 'Link copied';
  } catch {
    b.textContent = 'Copy the address bar';
  }
  setTimeout(() => { b.textContent = 'Copy link'; }, 2500);
});
$('dashboard-form').addEventListener('submit', saveDashboard);
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
  resizeTimer = setTimeout(() => widgets.redraw(), 150);
});
route();
