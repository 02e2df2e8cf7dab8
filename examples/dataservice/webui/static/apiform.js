// apiform.js: a function's arguments (a JSON Schema object from doc) as the API reference shows
// them: rows of a table, example arguments, and the fields of a form that reads them back.

import {el} from './ui.js';

// typeText says a property's type: "string", "array of string", "one of a, b", a $ref's name.
export function typeText(p = {}) {
  if (p.enum) return `one of ${p.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (p.$ref) return p.$ref.split('/').pop();
  const t = Array.isArray(p.type) ? p.type.join(' or ') : p.type || 'any JSON';
  if (t === 'array' && p.items) return `array of ${typeText(p.items)}`;
  return p.format ? `${t} (${p.format})` : t;
}

// limitsText says a property's bounds: length, items, range.
function limitsText(p) {
  const out = [];
  if (p.minLength !== undefined) out.push(`at least ${p.minLength} characters`);
  if (p.maxLength !== undefined) out.push(`at most ${p.maxLength} characters`);
  if (p.minItems !== undefined) out.push(`at least ${p.minItems} items`);
  if (p.maxItems !== undefined) out.push(`at most ${p.maxItems} items`);
  if (p.minimum !== undefined) out.push(`from ${p.minimum}`);
  if (p.maximum !== undefined) out.push(`up to ${p.maximum}`);
  return out.length ? ` (${out.join(', ')})` : '';
}

// argumentRows lists the arguments: [{name, type, required, default, description}].
export function argumentRows(schema = {}) {
  const required = new Set(schema.required || []);
  const rows = Object.entries(schema.properties || {}).map(([name, p]) => ({
    name,
    type: typeText(p),
    required: required.has(name),
    default: p.default === undefined ? '' : JSON.stringify(p.default),
    description: (p.description || '') + limitsText(p),
  }));
  if (schema.additionalProperties === true) {
    rows.push({name: '(any other name)', type: 'any JSON', required: false, default: '',
      description: 'The function takes arguments of any name.'});
  }
  return rows;
}

// exampleArgs gives example values of the required arguments.
export function exampleArgs(schema = {}) {
  const out = {};
  for (const name of schema.required || []) {
    const p = schema.properties?.[name] || {};
    if (p.default !== undefined) out[name] = p.default;
    else if (p.enum) out[name] = p.enum[0];
    else if (p.type === 'integer' || p.type === 'number') out[name] = p.minimum ?? 1;
    else if (p.type === 'boolean') out[name] = true;
    else if (p.type === 'array') out[name] = [];
    else if (p.type === 'object') out[name] = {};
    else out[name] = `<${name}>`;
  }
  return out;
}

// inputKind is how the form reads a property: "string", "number", "boolean", "enum" or "json".
function inputKind(p) {
  if (p.enum) return 'enum';
  if (p.type === 'string' || p.type === 'number' || p.type === 'boolean') return p.type;
  if (p.type === 'integer') return 'number';
  return 'json';
}

// formFields makes a labelled field per argument, and one for arguments of any name when the
// function takes them.
export function formFields(schema = {}) {
  const required = new Set(schema.required || []);
  const out = [];
  for (const [name, p] of Object.entries(schema.properties || {})) {
    const kind = inputKind(p);
    const attrs = {id: `arg-${name}`, 'data-name': name, 'data-kind': kind, autocomplete: 'off'};
    let input;
    if (kind === 'enum' || kind === 'boolean') {
      input = el('select', attrs);
      input.append(el('option', {value: ''}, '(not given)'));
      for (const v of kind === 'enum' ? p.enum : [true, false]) input.append(el('option', {value: JSON.stringify(v)}, String(v)));
    } else if (kind === 'json') {
      input = el('textarea', {...attrs, rows: 2, spellcheck: 'false', placeholder: p.type === 'array' ? '[ ]' : 'JSON'});
    } else {
      input = el('input', {...attrs, type: kind === 'number' ? 'number' : /password|^old$|^new$/.test(name) ? 'password' : 'text',
        step: 'any'});
      if (p.default !== undefined) input.placeholder = String(p.default);
    }
    if (required.has(name)) input.required = true;
    const label = el('label', {}, `${name}${required.has(name) ? ' (required)' : ''}`);
    label.append(input);
    if (p.description) label.append(el('span', {class: 'hint'}, p.description));
    out.push(label);
  }
  if (schema.additionalProperties === true) {
    const label = el('label', {}, 'Arguments (a JSON object)');
    label.append(el('textarea', {id: 'arg-more', rows: 3, spellcheck: 'false', placeholder: '{"hello": "world"}'}));
    out.push(label);
  }
  return out;
}

// readForm reads the arguments the form gives (empty fields are not given); it throws an Error
// naming a field that is not valid JSON.
export function readForm(form, schema = {}) {
  const args = {};
  for (const input of form.querySelectorAll('[data-name]')) {
    const v = input.value;
    if (v === '') continue;
    const name = input.dataset.name;
    switch (input.dataset.kind) {
      case 'string': args[name] = v; break;
      case 'number': args[name] = Number(v); break;
      default: args[name] = parseJSON(v, name);
    }
  }
  const more = form.querySelector('#arg-more');
  if (schema.additionalProperties === true && more?.value.trim()) {
    const extra = parseJSON(more.value, 'arguments');
    if (!extra || typeof extra !== 'object' || Array.isArray(extra)) throw new Error('The arguments must be a JSON object.');
    Object.assign(args, extra);
  }
  return args;
}

function parseJSON(text, name) {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${name}: not valid JSON`);
  }
}
