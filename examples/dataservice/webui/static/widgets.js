// widgets.js: the widgets of the open dashboard: their cards, their queries over the
// dashboard's period (followed when it ends now, answered once when it does not), zoom and
// drill-down.

import {AUTH_NEEDED, transient} from './api.js';
import * as charts from './charts.js';
import {drillQuery, drillStep, exploreHash, withPeriod} from './explore.js';
import {shownKind} from './sankey.js';
import {askCompare, compareButton, compareShift, download, toPNG} from './share.js';
import {isLive, windowOf} from './period.js';
import {onlyStatement} from './query.js';
import {$, el, confirmAction} from './ui.js';

const LIVE_INTERVAL = 5; // seconds between the answers of a followed query

// Widgets shows the widgets in #widget-grid over api; fields() gives list-fields' answer.
// Callbacks: edit(widget) opens the editor, periodHash(period) is the address of the dashboard
// over a period, onChange() follows a widget added, onAnswer() each answer.
export class Widgets {
  constructor(api, fields, {edit, periodHash, onChange, onAnswer}) {
    Object.assign(this, {api, fields, edit, periodHash, onChange, onAnswer});
    this.entries = new Map(); // widget id -> {widget, card, body, foot, expr, shapes, results, stop}
    this.period = null; // of the dashboard (period.js), null for each query's own
  }

  get size() { return this.entries.size; }

  // spans gives the seconds each widget's latest answer covers (undefined before one).
  spans() { return [...this.entries.values()].map((e) => e.acc); }

  // add adds the widget's card to the grid, or puts it in place of the card of the same widget,
  // and starts its query.
  add(w) {
    const old = this.entries.get(w.id);
    const entry = this.card(w);
    if (old) {
      old.stop?.();
      old.card.replaceWith(entry.card);
    } else {
      $('widget-grid').append(entry.card);
    }
    this.entries.set(w.id, entry);
    $('widget-empty').hidden = true;
    this.start(entry);
    this.onChange();
  }

  remove(id) {
    const entry = this.entries.get(id);
    if (!entry) return;
    entry.stop?.();
    entry.card.remove();
    this.entries.delete(id);
    $('widget-empty').hidden = this.entries.size > 0;
    this.onAnswer();
  }

  // restart runs every widget's query again (over a new period).
  restart() {
    for (const entry of this.entries.values()) {
      entry.stop?.();
      this.start(entry);
    }
  }

  // stop stops every query and forgets the widgets.
  stop() {
    for (const entry of this.entries.values()) entry.stop?.();
    this.entries.clear();
  }

  redraw() {
    for (const entry of this.entries.values()) this.draw(entry);
  }

  card(w) {
    const card = el('article', {class: 'card widget', 'data-id': w.id, 'data-kind': shownKind(w)});
    card.classList.toggle('wide', w.kind !== 'number');
    const current = () => this.entries.get(w.id)?.widget || w;
    const open = el('button', {type: 'button', class: 'btn ghost explore-widget', title: 'Open in Explore'}, 'Explore');
    const edit = el('button', {type: 'button', class: 'btn ghost edit-widget', title: 'Edit widget'}, 'Edit');
    const del = el('button', {type: 'button', class: 'btn ghost delete-widget', title: 'Delete widget'}, 'Delete');
    open.addEventListener('click', () => { location.hash = exploreHash(current().queries.join(';\n'), this.period); });
    edit.addEventListener('click', () => this.edit(current()));
    del.addEventListener('click', () => confirmAction('Delete widget?', `“${w.title}” will be removed from this dashboard.`,
      async () => {
        await this.api.call('delete-widget', {id: w.id});
        this.remove(w.id);
      }));
    const csv = el('button', {type: 'button', class: 'btn ghost csv-widget', title: 'Download the answer as CSV'}, 'CSV');
    csv.addEventListener('click', () => {
      const entry = this.entries.get(w.id);
      if (!entry?.results) return;
      download(`${current().title || 'widget'}.csv`, charts.toCSV(entry.results, entry.shapes), 'text/csv');
    });
    const png = el('button', {type: 'button', class: 'btn ghost png-widget', title: 'Download the widget as a PNG picture'}, 'PNG');
    png.addEventListener('click', async () => {
      download(`${current().title || 'widget'}.png`, await toPNG(this.entries.get(w.id)?.card || png.closest('.widget'), {skip: '.widget-tools'}));
    });
    const tools = el('div', {class: 'widget-tools'});
    if (w.kind === 'timeseries') {
      // Compare overlays the period before this one, or the same period last week, as a dashed total.
      tools.append(compareButton((mode) => {
        const entry = this.entries.get(w.id);
        if (!entry) return;
        entry.compare = mode;
        entry.previous = null;
        if (mode) this.previous(entry);
        else this.draw(entry);
      }));
    }
    tools.append(csv);
    if (w.kind !== 'number') tools.append(png); // a number's card is narrow: its title comes first
    tools.append(open, edit, del);
    const head = el('div', {class: 'widget-head'});
    head.append(el('h3', {title: w.title}, w.title), tools);
    const body = el('div', {class: 'widget-body'});
    body.append(el('div', {class: 'no-data'}, 'Loading…'));
    const foot = el('div', {class: 'widget-foot'});
    card.append(head, body, foot);
    const entry = {widget: w, card, body, foot, results: null, stop: null, hidden: new Set(), sort: {}};
    // A widget drawn anew between a press and its release makes no click (the pressed node is
    // gone) and ends a drag to zoom: while a button is down on it, its answers wait (draw).
    body.addEventListener('pointerdown', () => { entry.held = true; });
    const release = () => {
      if (!entry.held) return;
      entry.held = false;
      if (entry.waiting) setTimeout(() => this.draw(entry)); // after the click's own event
    };
    for (const type of ['pointerup', 'pointercancel', 'pointerleave']) body.addEventListener(type, release);
    return entry;
  }

  // start runs the widget's queries over the period: followed (answered again every few
  // seconds) when the period ends now, answered once when it does not.
  start(entry) {
    const period = this.period;
    entry.seen = null; // its first answer is drawn, the same or not
    entry.expr = entry.widget.queries.join(';\n');
    const expr = withPeriod(entry.expr, period).text;
    entry.shapes = charts.describeQuery(expr);
    const show = (chunk) => {
      const acc = chunk.result[0]?.meta?.accumulated_time;
      const win = windowOf(period, acc, chunk.progress);
      // A followed query answers every few seconds, mostly as before: an unchanged answer (but
      // for the time it took) is not drawn again, so hover and selection stay; a time series'
      // axis and a number's rate follow the window, drawn again when it moved.
      const seen = JSON.stringify(chunk.result, (k, v) => (k === 'elapsed' ? undefined : v));
      const same = seen === entry.seen && (!['timeseries', 'number'].includes(shownKind(entry.widget)) ||
        JSON.stringify(win) === JSON.stringify(entry.win));
      entry.results = chunk.result;
      entry.seen = seen;
      entry.win = win;
      if (!same) this.draw(entry);
      if (entry.compare && chunk.progress >= 1) this.previous(entry);
      const span = acc === undefined ? '' : isLive(period) ? `Last ${charts.formatDuration(acc)}`
        : `${charts.formatDuration(acc)} until ${charts.formatTime(period.until)}`;
      entry.acc = acc;
      this.onAnswer();
      entry.foot.replaceChildren(
        el('span', {class: 'accumulated', 'data-seconds': acc ?? ''}, span),
        el('span', {class: 'updated', 'data-at': Date.now()}, chunk.progress < 1 ? `Loading ${Math.round(chunk.progress * 100)} %`
          : isLive(period) ? `Updated ${charts.formatTime(Date.now() / 1000, true)}` : 'Fixed period'));
    };
    const fail = (err) => {
      if (err.code === AUTH_NEEDED) return;
      setState('live');
      entry.body.replaceChildren(el('div', {class: 'widget-error'}, err.message));
    };
    // While the service cannot be reached the widget keeps its last answer, dimmed, and says so.
    const setState = (state) => {
      const down = state === 'reconnecting';
      entry.card.classList.toggle('reconnecting', down);
      let note = entry.foot.querySelector('.reconnecting-note');
      if (down && !note) {
        note = el('span', {class: 'reconnecting-note', role: 'status'}, 'Reconnecting…');
        entry.foot.append(note);
      } else if (!down) {
        note?.remove();
      }
    };
    if (!isLive(period)) {
      let stopped = false;
      let timer;
      let pause = 500;
      entry.stop = () => { stopped = true; clearTimeout(timer); };
      const once = () => this.api.call('query', {expr}).then((result) => {
        if (stopped) return;
        setState('live');
        show({result, progress: 1});
      }, (e) => {
        if (stopped) return;
        if (!transient(e)) return fail(e);
        setState('reconnecting'); // asked again until the service answers
        timer = setTimeout(once, pause);
        pause = Math.min(pause * 2, 3000);
      });
      once();
      return;
    }
    entry.stop = this.api.follow('query', {expr, follow: true, interval: LIVE_INTERVAL},
      {onChunk: show, onError: fail, onState: setState});
  }

  // previous asks for the answer of the period the widget compares with (once a minute at
  // most, the past changing little) and draws it over the widget's own.
  previous(entry) {
    const win = entry.win;
    const mode = entry.compare;
    if (!win || !mode || entry.previousBusy) return;
    if (entry.previous?.mode === mode && entry.previous.shift === compareShift(mode, win) &&
      Date.now() - entry.previous.at < 60000) return;
    entry.previousBusy = true;
    askCompare(this.api, entry.expr, win, mode).then((previous) => {
      if (entry.compare !== mode) return;
      entry.previous = {...previous, at: Date.now()};
      this.draw(entry);
    }, () => {}).finally(() => { entry.previousBusy = false; }); // no overlay this time: the widget's own answer stands
  }

  draw(entry) {
    if (!entry.results) return;
    entry.waiting = entry.held; // drawn on release (card)
    if (entry.held) return;
    const w = entry.widget;
    charts.render(entry.body, shownKind(w), entry.results, entry.shapes, {
      unit: w.options?.unit || '',
      tooltip: $('tooltip'),
      win: entry.win,
      hidden: entry.hidden,
      sort: entry.sort,
      previous: entry.compare ? entry.previous : null,
      onZoom: (since, until) => { location.hash = this.periodHash({since, until}); },
      onPick: async ({statement, keys}) => {
        const list = await this.fields();
        const from = onlyStatement(entry.expr, statement);
        const next = drillQuery(from, keys, list);
        // Explore shows the way back: the widget's query, then this step.
        sessionStorage.setItem('drill', JSON.stringify(drillStep([{label: entry.widget.title, query: from}], from, keys, next)));
        location.hash = exploreHash(next, this.period);
      },
    });
  }
}
