// query.js: the query language as the page reads and rewrites it: tokens, statements and
// their clauses, a period put in place of each statement's SINCE and UNTIL, a filter added to
// each statement's WHERE. Rewrites are edits of the text, so that a position in the rewritten
// query (a QUERY-SYNTAX error's) maps back to the text the user wrote.

export const CLAUSES = ['by', 'from', 'where', 'having', 'top', 'since', 'until'];
export const KEYWORDS = ['BY', 'FROM', 'WHERE', 'HAVING', 'TOP', 'SINCE', 'UNTIL', 'AND', 'OR',
  'NOT', 'IN', 'AS', 'total', '@now'];

const TOKEN = /\s*("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|@\w*|[\w.:]+|[<>!]=|\S)/y;

// tokens splits expr into {text, start, end} tokens (white space dropped).
export function tokens(expr) {
  const out = [];
  TOKEN.lastIndex = 0;
  for (let m; TOKEN.lastIndex < expr.length && (m = TOKEN.exec(expr));) {
    const end = TOKEN.lastIndex;
    out.push({text: m[1], start: end - m[1].length, end});
  }
  return out;
}

// statements gives each statement of expr as its tokens, cut into parts at clause keywords
// outside parentheses: [{tokens, start, end, parts: [{clause, keyword, tokens}]}]. The first
// part ("values") has no keyword.
export function statements(expr) {
  const out = [];
  let cur = null;
  let depth = 0;
  for (const t of tokens(expr)) {
    if (t.text === ';') {
      cur = null;
      depth = 0;
      continue;
    }
    if (!cur) {
      cur = {tokens: [], start: t.start, end: t.end, parts: [{clause: 'values', keyword: null, tokens: []}]};
      out.push(cur);
    }
    cur.tokens.push(t);
    cur.end = t.end;
    if (t.text === '(') depth++;
    if (t.text === ')') depth--;
    const word = t.text.toLowerCase();
    if (depth === 0 && CLAUSES.includes(word)) cur.parts.push({clause: word, keyword: t, tokens: []});
    else cur.parts.at(-1).tokens.push(t);
  }
  return out;
}

// rewrite applies edits ({start, end, text}, not overlapping) to src and returns the new text
// and toSource(pos), the position in src of a position in the new text (an inserted text maps
// to where it was inserted).
export function rewrite(src, edits) {
  edits = [...edits].sort((a, b) => a.start - b.start);
  let text = '';
  let at = 0;
  const map = []; // {out, src, inserted} at the start of each piece
  for (const e of edits) {
    map.push({out: text.length, src: at, inserted: false});
    text += src.slice(at, e.start);
    map.push({out: text.length, src: e.start, inserted: true});
    text += e.text;
    at = e.end;
  }
  map.push({out: text.length, src: at, inserted: false});
  text += src.slice(at);
  const toSource = (pos) => {
    let piece = map[0];
    for (const p of map) if (p.out <= pos) piece = p;
    return piece.inserted ? piece.src : piece.src + (pos - piece.out);
  };
  return {text, toSource};
}

// STEPS are the time(N) steps a period may widen a query's time(N) to.
const STEPS = [10, 30, 60, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
const MAX_POINTS = 400;

// periodEdits are the edits that give every statement of expr the period bounds since and
// until (query-language times: "@now-3600", "1700000000"): its own SINCE and UNTIL are
// replaced, and a time(N) key that would give more than 400 points over span seconds is widened
// to the smallest step that does not.
export function periodEdits(expr, {since, until, span}) {
  const edits = [];
  for (const st of statements(expr)) {
    for (const p of st.parts) {
      if (p.clause === 'since' || p.clause === 'until') {
        const last = p.tokens.at(-1) || p.keyword;
        edits.push({start: p.keyword.start, end: last.end, text: ''});
      }
      if (p.clause === 'by') edits.push(...widenTime(p.tokens, span));
    }
    edits.push({start: st.end, end: st.end, text: ` SINCE ${since} UNTIL ${until}`});
  }
  return mergeEdits(edits);
}

function widenTime(ts, span) {
  const out = [];
  ts.forEach((t, i) => {
    if (t.text.toLowerCase() !== 'time' || ts[i + 1]?.text !== '(' || !/^\d+$/.test(ts[i + 2]?.text || '')) return;
    const n = Number(ts[i + 2].text);
    if (!span || span / n <= MAX_POINTS) return;
    const step = STEPS.find((s) => s >= n && span / s <= MAX_POINTS) || Math.ceil(span / MAX_POINTS);
    out.push({start: ts[i + 2].start, end: ts[i + 2].end, text: String(step)});
  });
  return out;
}

// mergeEdits joins edits at the same place (a removed UNTIL at a statement's end and the
// period inserted there).
function mergeEdits(edits) {
  edits.sort((a, b) => a.start - b.start || a.end - b.end);
  const out = [];
  for (const e of edits) {
    const last = out.at(-1);
    if (last && e.start < last.end) continue; // overlapping: keep the first
    if (last && e.start === last.end && (e.start === e.end || last.start === last.end)) {
      out[out.length - 1] = {start: last.start, end: e.end, text: last.text + e.text};
    } else {
      out.push({...e});
    }
  }
  return out;
}

// filterEdits are the edits that add filter (a WHERE condition) to the statement of expr at
// index, or to every statement when index is undefined: ANDed to its WHERE, or as a new one.
export function filterEdits(expr, filter, index) {
  const edits = [];
  statements(expr).forEach((st, i) => {
    if (index !== undefined && i !== index) return;
    const where = st.parts.find((p) => p.clause === 'where');
    if (where?.tokens.length) {
      const first = where.tokens[0];
      const last = where.tokens.at(-1);
      edits.push({start: first.start, end: first.start, text: '('});
      edits.push({start: last.end, end: last.end, text: `) AND ${filter}`});
    } else {
      edits.push({start: st.end, end: st.end, text: ` WHERE ${filter}`});
    }
  });
  return edits;
}

// literal writes a key's value as a WHERE operand, by the key's type from list-fields:
// addresses and ports bare, protocols bare when a name, an AS by its number and an interface by
// its index (1.3), null bare, anything else quoted.
export function literal(type, value) {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object') return String(value.asn ?? value.index);
  if (type === 'ip' || type === 'port' || typeof value === 'number') return String(value);
  if (type === 'protocol' && /^([a-z][\w-]*|\d+)$/i.test(value)) return String(value);
  return JSON.stringify(String(value));
}

// onlyStatement gives the text of expr's statement at index.
export function onlyStatement(expr, index) {
  const st = statements(expr)[index];
  return st ? expr.slice(st.start, st.end) : expr;
}
