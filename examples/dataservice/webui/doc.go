// Package webui serves the data service's web page: a sign-in form, the dashboards, and their
// widgets drawn live from the query function; and, from the account menu under the user's name,
// API keys, password, users (administrators only) and settings.
//
// The page is plain HTML, CSS and JavaScript embedded in the binary with go:embed: there is no
// build step, no framework and no chart library, and the browser loads nothing but the page's
// own files and the service's API. The scripts are ES modules:
//
//   - static/api.js: calls over HTTP (POST /api/<function> with a JSON body), and live queries
//     over the WebSocket at /api/ws (stream calls with follow: true, cancelled with the cancel
//     function when the dashboard is left), with HTTP streaming (NDJSON from
//     /api/stream/query) as the fallback;
//   - static/charts.js: number, table, time series, bar and pie widgets drawn as SVG;
//   - static/app.js: the views (sign-in, dashboard list, dashboard, widget editor) and routing;
//   - static/account.js: the caller's API keys (#/keys) and password (#/password);
//   - static/admin.js: users (#/users) and settings (#/settings);
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
// Users (list-users, create-user with an admin checkbox, delete-user after a confirmation) is
// for administrators: the page learns whether the user is one once per sign-in, from the admin
// flag of the user's row in list-users (the name is the one typed at sign-in, kept in session
// storage). A tab without that name (opened afresh, with the session cookie) asks delete-user
// for the user "", a name no user can have: an administrator gets NOT-FOUND and anyone else
// PERMISSION-DENIED. Others see no Users in the menu, and #/users takes them to the dashboards.
// Nobody deletes themselves: the user's own row has no Delete button.
//
// # Live transport
//
// Live queries use the WebSocket by default. The switch is the page's URL parameter live:
// ?live=http uses HTTP streaming only, ?live=ws the WebSocket only; without it the page uses the
// WebSocket and falls back to HTTP streaming for the rest of the visit when a WebSocket
// connection cannot be opened. HTTP streaming holds one request per widget, which HTTP/2
// multiplexes; over HTTP/1.1 a browser allows about six per host, so the WebSocket is better.
//
// # Widgets
//
// A widget's queries are joined with ";" into one followed query (one result per statement,
// refreshed every 5 seconds). Results carry no column names, so the page reads them from the
// query text: the BY keys, each value's AS name or expression, and its unit (bytes, packets or
// count, from its metrics; none when it divides). A widget's options may set "unit" to override
// that; the editor offers it. Kinds: number (the first value big, further values small), table
// (one per statement), timeseries (a line per value, or per key combination besides time(N), at
// most ten), bar (the first value of the first statement's rows, at most twelve) and pie (the
// same, at most eight slices, the rest as "other"). A followed query the server ends (streams
// last an hour by default, then end with TIMEOUT) starts again.
//
// # Security headers
//
// Every response of Handler carries a Content-Security-Policy that allows only the page's own
// origin (no inline script or style, frame-ancestors 'none'), X-Content-Type-Options: nosniff,
// Referrer-Policy: no-referrer, X-Frame-Options: DENY and Cross-Origin-Opener-Policy. Files are
// revalidated on each load (Cache-Control: no-cache with a content ETag), so an upgraded binary
// is picked up at once.
//
// # Tests
//
// browser_test.go drives Chromium (headless, through the DevTools protocol with chromedp)
// against the real service: sign in, create a dashboard, add widgets, check what they draw from
// real query results, check a QUERY-SYNTAX message, sign out. account_browser_test.go goes
// through the account menu: an API key created in the page works from Go (client.WithAPIKey)
// until it is revoked in the page, then answers API-AUTHENTICATION-NEEDED; a user is created
// and deleted, and one who is no administrator sees no Users; a setting changed in the page is
// what get-config answers, and a bad duration is refused naming its key; the password form shows
// the server's errors. Screenshots go to the temporary directory as fnapi-webui-*.png. It is skipped when Chromium is not
// installed, unless the environment has CI=true.
package webui
