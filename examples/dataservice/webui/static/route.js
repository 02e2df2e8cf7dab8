// route.js: the route panel of Explore's drill-down. When the query shown keeps one address
// (client.ip = A or server.ip = A, as a drill-down on an address writes it), the panel shows the
// BGP routes that covered it over the period: each AS path (the router's neighbour first, the
// origin last) with its communities and its records, from the records' route keys.

import {el} from './ui.js';

// addressFilter gives the side and address the query keeps with "=", or null.
export function addressFilter(query) {
  const m = /\b(client|server)\.ip\s*=\s*"?([0-9a-f.:]+)"?/i.exec(query);
  return m ? {side: m[1].toLowerCase(), addr: m[2]} : null;
}

// routeQuery is the statement asking the routes of side's address addr.
export function routeQuery(side, addr) {
  return `records BY ${side}.as_path, ${side}.communities WHERE ${side}.ip = ${addr} TOP 20`;
}

// formatPath writes an AS path as "AS64500 › AS15169".
export function formatPath(path) {
  return path.map((n) => `AS${n}`).join(' › ');
}

// renderRoute fills box with the routes of addr from the answer of routeQuery (rows of
// [[path, communities], [records]]), and hides it when no route covered the address.
export function renderRoute(box, addr, answer) {
  const rows = (answer?.data || []).filter(([[path, comms]]) => path || comms);
  box.hidden = rows.length === 0;
  if (box.hidden) return;
  const body = el('tbody');
  for (const [[path, comms], [n]] of rows) {
    const tr = el('tr');
    tr.append(el('td', {class: 'route-path'}, path ? formatPath(path) : '(the router\'s own AS)'));
    const td = el('td', {class: 'route-communities'});
    td.append(...(comms || []).map((c) => el('span', {class: 'chip'}, c)));
    tr.append(td, el('td', {class: 'num'}, String(n)));
    body.append(tr);
  }
  const table = el('table', {class: 'route-table'});
  const head = el('tr');
  head.append(el('th', {}, 'AS path'), el('th', {}, 'Communities'), el('th', {class: 'num'}, 'Records'));
  table.append(el('thead'), body);
  table.tHead.append(head);
  box.replaceChildren(el('h3', {}, `Route of ${addr}`), table);
}
