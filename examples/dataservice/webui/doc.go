// Package webui serves the data service's web page: a sign-in form, the dashboards, and their
// widgets drawn live from the query function.
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
//   - static/app.js: the views (sign-in, dashboard list, dashboard, widget editor).
//
// # Sessions
//
// The page signs in with the login function; the server sets the HttpOnly Svc-Session cookie
// and the page never keeps the token (it ignores login's result). Every call is a same-origin
// request that carries the cookie. An API-AUTHENTICATION-NEEDED answer, on any call or live
// query, returns to the sign-in form.
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
// real query results, check a QUERY-SYNTAX message, sign out. It is skipped when Chromium is not
// installed, unless the environment has CI=true.
package webui
