// Package webui serves the data service's web page: a sign-in form, the dashboards, and their
// widgets drawn live from the query function over a period the user picks; Explore, for a
// question no widget answers yet; the API reference; the flow collector's status; and, from the account menu under the
// user's name, API keys, password, users and their roles, the audit trail (administrators only) and settings.
//
// The page is plain HTML, CSS and JavaScript embedded in the binary with go:embed: there is no
// build step, no framework and no chart library, and the browser loads nothing but the page's
// own files and the service's API. The scripts are ES modules:
//
//   - static/api.js: calls over HTTP (POST /api/<function> with a JSON body), and live queries
//     over the WebSocket at /api/ws (stream calls with follow: true, cancelled with the cancel
//     function when the dashboard is left), with HTTP streaming (NDJSON from
//     /api/stream/query) as the fallback;
//   - static/charts.js: number, table, bar and pie widgets drawn as SVG, with drill-down
//     targets; static/timeseries.js the time series, with zoom by dragging; static/draw.js the
//     elements, palette and legends they draw with; static/format.js values and times for people;
//   - static/query.js: the query language as the page reads and rewrites it (statements,
//     clauses, a period in place of SINCE/UNTIL, a filter added to WHERE);
//   - static/period.js: the period of a dashboard or of Explore, in the URL and its picker;
//   - static/editor.js: the query editor (highlighting, completion, the error mark);
//   - static/explore.js: Explore (#/explore) and the drill-down that leads there;
//   - static/apiref.js and static/apiform.js: the API reference (#/api) and its forms;
//   - static/collector.js: the flow collector's status (#/collector);
//   - static/app.js: the views (sign-in, dashboard list, dashboard) and routing;
//   - static/widgets.js: the open dashboard's widgets and their queries over its period;
//   - static/widgeteditor.js: the widget editor;
//   - static/share.js: Compare (an earlier period to overlay) and the CSV and PNG downloads;
//   - static/account.js: the caller's API keys (#/keys) and password (#/password);
//   - static/admin.js: users and their roles (#/users), the audit trail (#/audit) and settings (#/settings);
//   - static/ui.js: helpers the views share (elements, form errors, the confirmation dialog).
//
// # Sessions
//
// The page signs in with the login function; the server sets the HttpOnly Svc-Session cookie
// and the page never keeps the token (it ignores login's result). Every call is a same-origin
// request that carries the cookie. An API-AUTHENTICATION-NEEDED answer, on any call or live
// query, returns to the sign-in form.
//
// # Account menu
//
// API keys lists list-api-keys (name, created, last used), creates keys and revokes them after
// a confirmation. A new key is shown once, in a dialog with a copy button and a warning that it
// will not be shown again; the page never stores it, and closing the dialog removes it from the
// page. Password calls change-password (current, new, confirmation, checked to match in the
// page) and shows the server's answer in words with its code: INVALID-CREDENTIALS, RATE-LIMITED
// with retry_after, INVALID-ARGUMENT with the field and reason. Settings shows get-config with a
// description of each key and sets the changed keys in one set-config (all or none); a field
// left empty resets its key to the default, and an INVALID-ARGUMENT marks the field of the key
// it names. Any signed-in user may use Settings, as set-config allows.
//
// Users (list-users, create-user with a role, set-role from a select on each other user's row,
// delete-user after a confirmation) and Audit trail (list-audit, 50 events at a time, newest
// first; "Show older events" asks for the page before the smallest id shown) are for
// administrators: the page learns whether the user is one once per sign-in, from the admin
// flag of the user's row in list-users (the name is the one typed at sign-in, kept in session
// storage). A tab without that name (opened afresh, with the session cookie) asks delete-user
// for the user "", a name no user can have: an administrator gets NOT-FOUND and anyone else
// PERMISSION-DENIED. Others see neither in the menu, and #/users or #/audit takes them to the
// dashboards. Nobody deletes themselves or changes their own role: the user's own row has no
// Delete button and shows its role as a badge.
//
// # Live transport
//
// Live queries use the WebSocket by default. The switch is the page's URL parameter live:
// ?live=http uses HTTP streaming only, ?live=ws the WebSocket only; without it the page uses the
// WebSocket and falls back to HTTP streaming for the rest of the visit when a WebSocket
// connection cannot be opened. HTTP streaming holds one request per widget, which HTTP/2
// multiplexes; over HTTP/1.1 a browser allows about six per host, so the WebSocket is better.
//
// # Recovery
//
// A live widget outlives the service's restarts (an upgrade's SIGTERM, whose followed queries
// end with CANCELLED "the server is shutting down"), a drain, a node's death behind a load
// balancer and a network cut. Whatever only interrupts a followed query (NETWORK, CANCELLED,
// TIMEOUT, UNAVAILABLE, INTERNAL-ERROR, RATE-LIMITED, LIMIT-REACHED of follow streams: see
// transient in api.js) starts it again after a pause that doubles from 0.5 s to 3 s; the
// WebSocket dials again on the same schedule (at once on the browser's online event) and
// starts every call it carries again; a connection or HTTP stream silent for 30 s (a followed
// query answers every 5) is taken for dead, as a cut sends no close. Meanwhile the widget keeps
// its last answer, dimmed, its foot says "Reconnecting…" and so does the top bar; no error code
// shows. A mistake in the call (QUERY-SYNTAX, PERMISSION-DENIED...) ends it with its message.
// A fixed period's query is asked again on the same schedule.
//
// # Widgets
//
// A widget's queries are joined with ";" into one followed query (one result per statement,
// refreshed every 5 seconds). An answer the same as the last (but for the time it took) is not
// drawn again, unless the widget is a time series or a number, whose axis or rate follows the
// moving period; and while a button is down on a widget, its answers wait for the release, so that
// a redraw never swallows a click or ends a drag to zoom. Results carry no column names, so the
// page reads them from the query text: the BY keys, each value's AS name or expression, and its
// unit (bytes, packets or count, from its metrics; none when it divides). A widget's options may
// set "unit" to override that; the editor offers it. Kinds: number (the first value big, the sum of
// its rows when they are bytes, packets or records, else the first row named as such; with the
// average rate over the period, and peak and 95th percentile of the bucket rates with a time(N)
// key; further values small), table (one per statement, sortable by a click on a column's head,
// with a share column for bytes, packets and records, at most 500 rows and the count of the rest),
// timeseries (rates per second of each bucket: bytes as bit/s, packets as packets/s, records as
// records/s; a line per value, or stacked areas per key combination besides time(N), the nine
// largest and "Other"; a panel per unit; the legend's swatch hides a series), bar (the first value
// of the first statement's rows, at most twelve) and pie (the same, at most eight slices, the rest
// as "other") and sankey (static/sankey.js: the first statement's keys besides time as columns,
// e.g. BY client.ip, server.ip, application; each column's seven largest nodes and "Other", as tall
// as their first value, and bands between neighbouring columns as wide as what flows; a node or a
// band drills down by its keys). The service stores its own kinds only, so a sankey widget is
// stored as a table with the option view "sankey" (other clients show its table). A time series'
// axis spans the period asked with ticks on round local times; time(N) point T is drawn over [T-N,
// T), buckets the period only partly covers are left out and missing ones are zero between the
// first and last answered. Clocks are 24-hour. A followed query the server ends (streams last an
// hour by default, then end with TIMEOUT) starts again.
//
// # Periods
//
// A dashboard shows its widgets over one period, picked above them: "Query periods" (each
// query's own SINCE and UNTIL, the service's default_period when it has none: the default),
// the last 15 minutes, hour, 6 hours, 24 hours, 7 days or 30 days, or a custom since and until
// (until left empty means now). The period is in the URL fragment (#/d/<id>?range=6h, or
// ?since=<unix>&until=<unix>), so a link shares the view and a reload keeps it. The page puts
// the period in place of each statement's own SINCE and UNTIL; a time(N) key that would give
// more than 400 points over the period is widened to the smallest of 10 s, 30 s, 1, 5, 10, 15,
// 30 min, 1, 2, 3, 6, 12 h or 1 d that does not (a 30-day period of time(60) draws 2-hour
// points). Only a period that ends now is live (followed, answered again every 5 seconds); a
// custom period that ends in the past is answered once and its widgets say "Fixed period".
// Each widget's foot tells the period its answer covers, from meta.accumulated_time. Dragging
// across a time series zooms every widget to the span dragged (a custom period).
//
// # Explore
//
// #/explore?q=<query>&range=<preset> (or since/until, and kind=<chart kind> once one is chosen)
// runs a query over a period and shows its answer as a table, time series, bar chart, pie chart,
// number or Sankey view (kind=sankey). The editor colours metrics, keys, layers, keywords, numbers and strings, and
// completes names for the clause at the caret: keys after BY, layers after FROM, keys and
// operators after WHERE, metrics and keywords elsewhere. The names come from list-fields, asked
// once per sign-in, so a field the service adds (such as exporter) is highlighted and completed
// without a change here. Ctrl+Enter runs; Tab or Enter takes a completion, Escape closes the
// list. A QUERY-SYNTAX error is marked under the token at its position (mapped back through the
// period's rewriting to the text as typed) and shown with a caret under the line. "Save as
// widget" adds the query, as typed and without the period (the dashboard gives it one), to a
// dashboard chosen in a dialog.
//
// # Drill-down
//
// A bar, a pie slice, a table row or a legend entry (of a time series with keys besides time,
// or of a pie) opens Explore with the statement it came from, a filter on each of its keys
// ANDed to the statement's WHERE (application = "dns", server.ip = 10.0.0.5, protocol = tcp:
// quoted or bare by the key's type from list-fields; none the statement has already), each
// clicked key of BY replaced by the next of application, server.ip, server.port, client.ip,
// protocol, client.port it neither groups nor filters by, and the same period. Explore shows
// the drill-down path (the widget's title or Start, then each step's filters) as buttons back.
// A widget's CSV button downloads its answer (a text cell that a spreadsheet would take for
// a formula, beginning with =, +, -, @, a tab or CR, after a single quote; numbers as they
// are) and its PNG button (all but numbers) a picture of it as shown
// (static/share.js: the charts' SVG, their styles written in, drawn as data: images on a canvas
// with the texts and swatches, at twice the size on screen; no library); the dashboard's Copy
// link copies its address; a time series' Compare overlays the total of the period before, then
// (clicked again) of the same period last week, dashed and moved forward, named so in the
// tooltip; a third click stops. Explore offers Compare (time series) and PNG too. Each is a
// button for the keyboard too: Tab reaches it, Enter or Space opens it. Inside Explore, drilling narrows
// the query in place.
//
// # API reference
//
// #/api?v=<version>&fn=<function> lists every function of doc for the version chosen among
// the versions served (doc is asked of /api/<version>/doc once per version): its description,
// since, who may call it, arguments (type, required, default, description and bounds, from the
// JSON Schema), its errors with their descriptions from doc's error list, the errors any call may
// answer, and an example curl line. Its form has a field per argument (text, number, a select
// for enums and booleans, JSON for arrays and objects, and a JSON object for functions that take
// any argument, as echo does); Call sends them to /api/<version>/<function> with the session
// cookie and shows the whole message answered, result or error. New functions and arguments of
// the service show without a change here.
//
// # Collector
//
// #/collector (Collector in the navigation) shows collector-status: the sockets the collector
// listens on, tiles of its totals (exporters of the bound, flows per second, flows and records
// stored, datagrams and undecodable ones, drops with their causes), and a table of exporters by
// address: the kinds of datagrams seen, flows per second, flows, datagrams, drops, errors (each
// kind of trouble named: undecodable datagrams, data sets without template, refused templates,
// invalid records, ignored vendor fields), templates, first seen, and last seen as "12 s ago" with a "quiet" badge after
// five minutes of silence. Counts of trouble show in the danger colour. It asks again every 5
// seconds while the view shows and the tab is visible, and stops when the view is left; a
// service without -netflow and -sflow is asked once and says how to start the collector. The
// table has a caption for assistive technology, column headers and the address as each row's
// header; below 1100 px each exporter is a block of labelled lines.
//
// # Accessibility and themes
//
// Every control is reachable with the keyboard and shows a visible focus ring; the views have
// labels for assistive technology (the period picker, the editor as a combobox with its
// listbox, the kind tabs as a tablist moved with the arrow keys, drill-down targets as labelled
// buttons), and a "Skip to content" link comes first. Colours are variables of a light and a
// dark theme (prefers-color-scheme, or the account menu's Theme switch: system, light or dark,
// kept in localStorage) whose texts meet WCAG AA contrast; below 760 px the top bar
// wraps, heads stack and the API reference has one column, down to 360 px wide.
//
// # Security headers
//
// Every response of Handler carries a Content-Security-Policy that allows only the page's own
// origin (no inline script or style, frame-ancestors 'none'), X-Content-Type-Options: nosniff,
// Referrer-Policy: no-referrer, X-Frame-Options: DENY and Cross-Origin-Opener-Policy. Files are
// revalidated on each load (Cache-Control: no-cache with a content ETag), so an upgraded binary
// is picked up at once, and sent compressed with gzip to browsers that accept it.
//
// # Tests
//
// browser_test.go and the other *_browser_test.go files (one per part of the page) drive
// headless Chromium (through the DevTools protocol, with chromedp) against the real service,
// as a user would: the browser's page, the service's API and its stores. They are skipped when
// Chromium is not installed, unless the environment has CI=true. Screenshots go to the
// temporary directory as fnapi-webui-*.png, and the console's (light, dark, 360 px) to
// $WEBUI_SCREENSHOTS when set, else to a temporary folder of the test.
package webui
