// apiref.js: the API reference (#/api?v=<version>&fn=<function>), read from the doc function
// of each served version: every function's arguments, errors and an example curl line, and a
// form that calls it with the user's session and shows the message it answers.

import {el, $} from './ui.js';
import {argumentRows, exampleArgs, formFields, readForm} from './apiform.js';

const AUTH = {
  none: 'No sign-in needed',
  token: 'A session or an API key',
  session: 'A session only (no API key)',
};

// APIReference shows the reference over api.
export class APIReference {
  constructor(api) {
    this.api = api;
    this.docs = new Map(); // version -> doc's answer
    $('api-version').addEventListener('change', () => this.go($('api-version').value, this.fn));
    $('api-filter').addEventListener('input', () => this.filter());
  }

  // doc gives doc's answer for a version ('' for the latest), asked once.
  async doc(version) {
    if (!this.docs.has(version)) {
      const session = this.api.session;
      const msg = await this.api.message('doc', {}, version);
      if (msg.type !== 'result') throw this.api.toError(msg, session);
      this.docs.set(version, msg.result);
    }
    return this.docs.get(version);
  }

  go(version, fn) {
    const p = new URLSearchParams({v: version});
    if (fn) p.set('fn', fn);
    location.hash = `#/api?${p}`;
  }

  async show(params) {
    const latest = await this.doc('');
    const version = latest.versions.includes(params.get('v')) ? params.get('v') : latest.version;
    const d = await this.doc(version === latest.version ? '' : version);
    $('api-version').replaceChildren(...latest.versions.map((v) =>
      el('option', {value: v}, v === latest.version ? `${v} (latest)` : v)));
    $('api-version').value = version;
    this.version = version;
    this.fn = d.functions.some((f) => f.name === params.get('fn')) ? params.get('fn') : d.functions[0]?.name;
    $('api-functions').replaceChildren(...d.functions.map((f) => {
      const a = el('a', {href: `#/api?v=${version}&fn=${f.name}`, 'data-fn': f.name}, f.name);
      if (f.name === this.fn) a.setAttribute('aria-current', 'true');
      const li = el('li');
      li.append(a);
      return li;
    }));
    this.filter();
    const f = d.functions.find((x) => x.name === this.fn);
    if (f) this.showFunction(f, d);
  }

  filter() {
    const want = $('api-filter').value.trim().toLowerCase();
    for (const li of $('api-functions').children) li.hidden = !li.textContent.toLowerCase().includes(want);
  }

  showFunction(f, d) {
    const box = $('api-function');
    const head = el('div', {class: 'fn-head'});
    head.append(el('h2', {id: 'fn-name'}, f.name), el('span', {class: 'badge'}, `since ${f.since}`),
      el('span', {class: 'badge'}, AUTH[f.auth] || f.auth));
    if (f.streaming) head.append(el('span', {class: 'badge'}, 'streams'));
    const parts = [head, el('p', {}, f.description || '')];

    parts.push(el('h3', {}, 'Arguments'));
    const rows = argumentRows(f.arguments);
    if (rows.length) {
      const table = el('table', {class: 'data args'});
      const thead = table.createTHead().insertRow();
      for (const h of ['Name', 'Type', 'Required', 'Default', 'Description']) thead.append(el('th', {}, h));
      const body = table.createTBody();
      for (const r of rows) {
        const tr = body.insertRow();
        tr.append(el('td', {}, ''), el('td', {'data-label': 'Type'}, r.type),
          el('td', {'data-label': 'Required'}, r.required ? 'required' : 'optional'),
          el('td', {'data-label': 'Default'}, r.default), el('td', {}, r.description));
        tr.firstChild.append(el('code', {}, r.name));
      }
      const wrap = el('div', {class: 'table-wrap'});
      wrap.append(table);
      parts.push(wrap);
    } else {
      parts.push(el('p', {class: 'muted'}, 'None.'));
    }

    parts.push(el('h3', {}, 'Errors'));
    const codes = f.errors || [];
    const errs = el('dl', {class: 'errors'});
    for (const code of codes) {
      const e = [...(d.declared_errors || []), ...(d.errors || [])].find((x) => x.code === code);
      errs.append(el('dt', {}, code), el('dd', {}, e ? errorText(e) : 'See the function’s description.'));
    }
    parts.push(codes.length ? errs : el('p', {class: 'muted'}, 'None of its own.'));
    const common = el('details', {class: 'common-errors'});
    common.append(el('summary', {}, 'Errors any call may answer'), errorList(d.errors || []));
    parts.push(common);

    parts.push(el('h3', {}, 'Example'));
    parts.push(el('pre', {class: 'curl', id: 'fn-curl'}, curlLine(this.version, f)));

    parts.push(el('h3', {}, 'Try it'));
    const form = el('form', {class: 'try', id: 'fn-form'});
    form.append(...formFields(f.arguments));
    const call = el('button', {type: 'submit', class: 'btn primary', id: 'fn-call'}, `Call ${f.name}`);
    const actions = el('div', {class: 'form-actions'});
    actions.append(call);
    const answer = el('pre', {class: 'answer', id: 'fn-answer', role: 'status', 'aria-label': 'Answer', hidden: ''});
    form.append(actions, answer);
    form.addEventListener('submit', (ev) => this.call(ev, f, form, answer, call));
    parts.push(form);
    box.replaceChildren(...parts);
  }

  // call calls the function with the form's arguments (the session cookie goes along) and shows
  // the whole message it answers.
  async call(ev, f, form, answer, button) {
    ev.preventDefault();
    answer.hidden = false;
    let args;
    try {
      args = readForm(form, f.arguments);
    } catch (e) {
      answer.textContent = e.message;
      answer.className = 'answer bad';
      return;
    }
    button.disabled = true;
    try {
      const msg = await this.api.message(f.name, args, this.version);
      answer.textContent = JSON.stringify(msg, null, 2);
      answer.className = `answer ${msg.type === 'error' ? 'bad' : 'good'}`;
    } finally {
      button.disabled = false;
    }
  }
}

function errorList(errors) {
  const dl = el('dl', {class: 'errors'});
  for (const e of errors) dl.append(el('dt', {}, e.code), el('dd', {}, errorText(e)));
  return dl;
}

// errorText describes an error code of doc: when it is answered, its HTTP status, its attributes.
function errorText(e) {
  return `${e.description} HTTP ${e.status}. ${attrsText(e.attributes)}`.trim();
}

function attrsText(attrs = {}) {
  const names = Object.keys(attrs);
  return names.length ? `Attributes: ${names.map((n) => `${n} (${attrs[n]})`).join('; ')}.` : '';
}

// curlLine is a curl command that calls f at version with example arguments.
function curlLine(version, f) {
  const url = `${location.origin}/api/${version}/${f.name}`;
  const lines = [`curl -X POST '${url}'`, `  -H 'Content-Type: application/json'`];
  if (f.auth === 'token') lines.push(`  -H 'Svc-Authorization: secret:<your API key>'`);
  if (f.auth === 'session') lines.push(`  -b 'Svc-Session=<your session>'`);
  const body = JSON.stringify(exampleArgs(f.arguments)).replaceAll("'", "'\\''");
  lines.push(`  -d '${body}'`);
  return lines.join(' \\\n');
}
