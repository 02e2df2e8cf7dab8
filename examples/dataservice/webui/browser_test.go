package webui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

const adminPassword = "browser-test-password"

// Records the test ingests: one a minute over the last 20 minutes from a client the demo
// traffic never uses, with traffic rising with time.
const (
	knownClients = "192.0.2.0/24"
	knownPoints  = 20
)

// knownTotal is the traffic of the known records: client bytes 1000*(1..20), server bytes 500.
const knownTotal = 1000*knownPoints*(knownPoints+1)/2 + 500*knownPoints

// TestBrowser drives Chromium through the page against the real service (demo traffic and the
// known records): sign in, create a dashboard, add widgets and check what they draw, check a
// QUERY-SYNTAX message, sign out. It runs once with live queries over the WebSocket and once
// over HTTP streaming; then the account menu's views (testAccount).
func TestBrowser(t *testing.T) {
	chrome := testenv.Chromium(t)
	srv, hits := startService(t)
	base := srv.URL
	ingestKnown(t, srv)
	waitDemo(t, srv)
	browser := testenv.Browser(t, chrome)

	t.Run("charts", func(t *testing.T) { testCharts(t, browser, base) })
	for _, live := range []string{"ws", "http"} {
		t.Run(live, func(t *testing.T) {
			p, problems := openTab(t, browser)
			p.signIn(base + "/?live=" + live)
			p.createDashboard("Browser test " + live)

			numberExpr := fmt.Sprintf("traffic WHERE client.ip IN %s", knownClients)
			p.addWidget("Known traffic", "number", numberExpr)
			p.poll(fmt.Sprintf(`document.querySelector('.widget[data-kind=number] .big-value')?.title === '%d'`, knownTotal))
			if got := p.text(`.widget[data-kind=number] .big-value`); got != "220 kB" {
				t.Errorf("number widget shows %q, want 220 kB", got)
			}

			p.addWidget("Known traffic over time", "timeseries", fmt.Sprintf("traffic BY time(60) WHERE client.ip IN %s", knownClients))
			p.poll(`document.querySelector('.widget[data-kind=timeseries] path.series')`)
			p.poll(`document.querySelector('.widget[data-kind=timeseries] .widget-foot .updated')?.textContent.startsWith('Updated')`) // the whole answer
			checkRisingLine(t, p.eval(`document.querySelector('.widget[data-kind=timeseries] path.series').getAttribute('d')`))

			shot := ""
			if live == "ws" {
				shot = filepath.Join(os.TempDir(), "fnapi-webui-query-error.png")
			}
			p.addBadWidget("traffic BY nosuch", shot)

			if live == "ws" {
				p.addWidget("Traffic by application", "bar", "traffic BY application TOP 8")
				p.addWidget("Traffic by protocol", "pie", "traffic BY protocol")
				p.addWidget("Busiest servers", "table", "traffic, packets, records BY server.ip, application TOP 10")
				p.addWidget("Packets", "number", "packets; records")
				p.addWidget("Traffic by protocol over time", "timeseries", "traffic BY time(300), protocol")
				p.poll(`document.querySelectorAll('.widget-foot .updated').length === 7`)
				p.poll(`[...document.querySelectorAll('.widget-foot .updated')].every(e => e.textContent.startsWith('Updated'))`)
				p.screenshot(filepath.Join(os.TempDir(), "fnapi-webui-dashboard.png"))
			}
			if got := p.text("#live-state"); got != "Live" {
				t.Errorf("live state %q, want Live", got)
			}
			// Everything the page loaded came from the service.
			if foreign := p.eval(`performance.getEntriesByType('resource').map(e => e.name).filter(u => new URL(u).origin !== location.origin).join(' ')`); foreign != "" {
				t.Errorf("the page loaded %s", foreign)
			}
			// The live queries went over the transport the page was asked to use.
			ws, streams := hits.count("/api/ws"), hits.count("/api/stream/query")
			if live == "ws" && (ws == 0 || streams > 0) || live == "http" && streams == 0 {
				t.Errorf("live=%s: %d WebSocket connections and %d HTTP streams so far", live, ws, streams)
			}
			if live == "http" {
				p.editFirstWidgetTitle(" (edited)")
				p.deleteWidget(`.widget[data-kind=timeseries]`)
				p.deleteDashboard("Browser test " + live)
				p.screenshot(filepath.Join(os.TempDir(), "fnapi-webui-list.png"))
			}
			p.signOut()
			if live == "http" {
				p.screenshot(filepath.Join(os.TempDir(), "fnapi-webui-login.png"))
			}
			p.do(chromedp.Sleep(300 * time.Millisecond)) // let the console catch up
			if msgs := problems(); len(msgs) > 0 {
				t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
			}
		})
	}
	t.Run("account", func(t *testing.T) { testAccount(t, browser, srv) })
	t.Run("console", func(t *testing.T) { testConsole(t, browser, srv) })
	t.Run("state", func(t *testing.T) { testState(t, browser, srv) })
	t.Run("share", func(t *testing.T) { testShare(t, browser, srv) })
	t.Run("zones", func(t *testing.T) { testZones(t, browser, srv) })
}

// openTab opens a tab with a browser context of its own (no cookies of other tabs), closed at
// the end of the test, and watches its console (watchConsole).
func openTab(t *testing.T, browser context.Context) (*page, func() []string) {
	tab, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	return &page{t: t, ctx: tab}, watchConsole(tab)
}

// page runs the steps of a test in a tab, failing the test on an error.
type page struct {
	t   *testing.T
	ctx context.Context
}

func (p *page) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		p.t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression that gives a string, awaiting a promise.
func (p *page) eval(js string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("browser: evaluating %s: %v", js, err)
	}
	return v
}

// poll waits until the expression is true.
func (p *page) poll(js string) {
	p.t.Helper()
	p.do(chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(100*time.Millisecond),
		chromedp.WithPollingTimeout(25*time.Second)))
}

func (p *page) text(sel string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		p.t.Fatalf("browser: text of %s: %v", sel, err)
	}
	return v
}

// signIn opens url, the dashboards' list, and signs in as the administrator.
func (p *page) signIn(url string) {
	p.t.Helper()
	p.signInAs(url, "admin", adminPassword, "#list-view")
}

// signInAs opens url and signs in as user on the sign-in form it shows, then waits for view.
func (p *page) signInAs(url, user, password, view string) {
	p.t.Helper()
	p.do(
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS("#login-form")),
		chromedp.SetValue(chromedp.CSS("#login-user"), user),
		chromedp.SendKeys(chromedp.CSS("#login-password"), password),
		chromedp.Click(chromedp.CSS("#login-submit")),
		chromedp.WaitVisible(chromedp.CSS(view)),
	)
	// The session is in the HttpOnly cookie, out of the page's reach.
	if c := p.eval(`document.cookie`); c != "" {
		p.t.Errorf("the page can read cookies %q", c)
	}
}

func (p *page) createDashboard(title string) {
	p.t.Helper()
	p.do(
		chromedp.Click(chromedp.CSS("#new-dashboard")),
		chromedp.WaitVisible(chromedp.CSS("#dashboard-title-input")),
		chromedp.SendKeys(chromedp.CSS("#dashboard-title-input"), title),
		chromedp.SendKeys(chromedp.CSS("#dashboard-description-input"), "Traffic of the demo network and of the test's own records."),
		chromedp.Click(chromedp.CSS("#dashboard-save")),
		chromedp.WaitVisible(chromedp.CSS("#dashboard-view")),
	)
	if got := p.text("#dashboard-title"); got != title {
		p.t.Errorf("dashboard title %q, want %q", got, title)
	}
}

// fillWidget opens the widget editor and fills it in.
func (p *page) fillWidget(title, kind, query string) {
	p.t.Helper()
	p.do(
		chromedp.Click(chromedp.CSS("#add-widget")),
		chromedp.WaitVisible(chromedp.CSS("#widget-title")),
		chromedp.SendKeys(chromedp.CSS("#widget-title"), title),
		chromedp.SetValue(chromedp.CSS("#widget-kind"), kind),
		chromedp.SendKeys(chromedp.CSS("#widget-queries textarea"), query),
		chromedp.Click(chromedp.CSS("#widget-save")),
	)
}

func (p *page) addWidget(title, kind, query string) {
	p.t.Helper()
	before := p.eval(`String(document.querySelectorAll('.widget').length)`)
	p.fillWidget(title, kind, query)
	p.poll(fmt.Sprintf(`!document.querySelector('#widget-dialog').open && document.querySelectorAll('.widget').length === %s + 1`, before))
}

// addBadWidget tries to save a widget whose query is wrong, checks the QUERY-SYNTAX message
// and closes the editor. With shot, it takes a screenshot of the editor there.
func (p *page) addBadWidget(query, shot string) {
	p.t.Helper()
	p.fillWidget("Bad", "number", query)
	p.do(chromedp.WaitVisible(chromedp.CSS(".query-error")))
	msg := p.text(".query-error")
	pos := strings.Index(query, "nosuch")
	want := fmt.Sprintf("QUERY-SYNTAX at position %d: expected ", pos)
	if !strings.Contains(msg, want) {
		p.t.Errorf("query error %q does not contain %q", msg, want)
	}
	// A caret under the position.
	if !strings.Contains(msg, query+"\n"+strings.Repeat(" ", pos)+"^") {
		p.t.Errorf("query error %q does not point at position %d", msg, pos)
	}
	if shot != "" {
		p.screenshot(shot)
	}
	p.do(chromedp.Click(chromedp.CSS("#widget-dialog [data-close]")),
		chromedp.WaitNotVisible(chromedp.CSS("#widget-dialog")))
}

// editFirstWidgetTitle appends to the first widget's title in its editor.
func (p *page) editFirstWidgetTitle(suffix string) {
	p.t.Helper()
	title := p.text(".widget h3")
	p.do(
		chromedp.Click(chromedp.CSS(".widget .edit-widget")),
		chromedp.WaitVisible(chromedp.CSS("#widget-title")),
		chromedp.SendKeys(chromedp.CSS("#widget-title"), suffix),
		chromedp.Click(chromedp.CSS("#widget-save")),
		chromedp.WaitNotVisible(chromedp.CSS("#widget-dialog")),
	)
	p.poll(fmt.Sprintf(`document.querySelector('.widget h3').textContent === %q`, title+suffix))
	p.poll(`document.querySelector('.widget .big-value')`) // drawn again from its query
}

func (p *page) deleteWidget(sel string) {
	p.t.Helper()
	before := p.eval(`String(document.querySelectorAll('.widget').length)`)
	p.do(
		chromedp.Click(chromedp.CSS(sel+" .delete-widget")),
		chromedp.WaitVisible(chromedp.CSS("#confirm-ok")),
		chromedp.Click(chromedp.CSS("#confirm-ok")),
	)
	p.poll(fmt.Sprintf(`document.querySelectorAll('.widget').length === %s - 1 && !document.querySelector(%q)`, before, sel))
}

func (p *page) deleteDashboard(title string) {
	p.t.Helper()
	p.do(
		chromedp.Click(chromedp.CSS("#delete-dashboard")),
		chromedp.WaitVisible(chromedp.CSS("#confirm-ok")),
		chromedp.Click(chromedp.CSS("#confirm-ok")),
		chromedp.WaitVisible(chromedp.CSS("#list-view")),
	)
	p.poll(fmt.Sprintf(`![...document.querySelectorAll('.dash-card h2')].some(h => h.textContent === %q)`, title))
}

func (p *page) signOut() {
	p.t.Helper()
	p.do(chromedp.Click(chromedp.CSS("#logout")), chromedp.WaitVisible(chromedp.CSS("#login-form")))
	got := p.eval(`fetch('/api/list-dashboards', {method: 'POST'}).then(r => r.json()).then(m => m.error)`)
	if got != "API-AUTHENTICATION-NEEDED" {
		p.t.Errorf("after sign-out list-dashboards answers %q, want API-AUTHENTICATION-NEEDED", got)
	}
}

func (p *page) screenshot(path string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot: %s", path)
}

var pathPoint = regexp.MustCompile(`[ML](-?[\d.]+),(-?[\d.]+)`)

// checkRisingLine checks that a line has the known records' points, rising with time (SVG y
// falls as values grow).
func checkRisingLine(t *testing.T, d string) {
	t.Helper()
	points := pathPoint.FindAllStringSubmatch(d, -1)
	if len(points) != knownPoints {
		t.Fatalf("the line has %d points, want %d: %s", len(points), knownPoints, d)
	}
	lastX, lastY := -1.0, 1e9
	for _, m := range points {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		if x <= lastX || y >= lastY {
			t.Fatalf("the line does not rise left to right: %s", d)
		}
		lastX, lastY = x, y
	}
}

// startService opens the data service with demo traffic and serves it over HTTPS (HTTP/2,
// as the real server does), counting the requests of each path.
func startService(t *testing.T) (*httptest.Server, *requests) {
	srv, hits, _ := startServiceWith(t, app.Config{Demo: true})
	return srv, hits
}

// requests counts the requests of each path.
type requests struct {
	mu    sync.Mutex
	paths map[string]int
}

func (r *requests) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.paths[req.URL.Path]++
		r.mu.Unlock()
		h.ServeHTTP(w, req)
	})
}

func (r *requests) count(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.paths[path]
}

// waitDemo waits until the demo's backfill, which writes the last 24 hours oldest first, has
// reached the last two hours: several applications answer there, as the tests expect.
func waitDemo(t *testing.T, srv *httptest.Server) {
	t.Helper()
	var token string
	call(t, srv.Client(), srv.URL, "login", map[string]any{"user": "admin", "password": adminPassword}, &token)
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		var res []struct{ Data []json.RawMessage }
		call(t, srv.Client(), srv.URL, "query", map[string]any{"expr": "traffic BY application SINCE @now-600", "_session": token}, &res)
		if len(res) == 1 && len(res[0].Data) >= 3 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo's traffic of the last 10 minutes: %d applications after 3 minutes", len(res[0].Data))
		}
	}
}

// ingestKnown stores the known records through the API.
func ingestKnown(t *testing.T, srv *httptest.Server) {
	ingestKnownAt(t, srv.Client(), srv.URL)
}

// ingestKnownAt stores the known records through the API at base.
func ingestKnownAt(t *testing.T, client *http.Client, base string) {
	var token string
	call(t, client, base, "login", map[string]any{"user": "admin", "password": adminPassword}, &token)
	now := time.Now().Unix()
	var records []map[string]any
	for k := 1; k <= knownPoints; k++ {
		records = append(records, map[string]any{
			"time":     now - int64(60*k) - 5,
			"protocol": "tcp",
			"client":   map[string]any{"ip": "192.0.2.7", "port": 50000 + k, "bytes": 1000 * (knownPoints + 1 - k), "packets": 3},
			"server":   map[string]any{"ip": "198.51.100.1", "port": 443, "bytes": 500, "packets": 2},
		})
	}
	call(t, client, base, "ingest", map[string]any{"records": records, "_session": token}, nil)
}

func call(t *testing.T, client *http.Client, base, fn string, args map[string]any, out any) {
	t.Helper()
	body, _ := json.Marshal(args)
	res, err := client.Post(base+"/api/"+fn, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var msg struct {
		Type   string          `json:"type"`
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&msg); err != nil || msg.Type != "result" {
		t.Fatalf("%s: %s %v", fn, msg.Error, err)
	}
	if out != nil {
		if err := json.Unmarshal(msg.Result, out); err != nil {
			t.Fatal(err)
		}
	}
}

// watchConsole collects the tab's console errors and exceptions (a Content-Security-Policy
// violation is one); the returned function gives those seen so far.
func watchConsole(ctx context.Context) func() []string {
	var mu sync.Mutex
	var msgs []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			// The API's 4xx answers (401 before sign-in, 400 for a bad query) are expected.
			expected := strings.Contains(m.Text, "the server responded with a status of 4")
			if !expected && (m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleWarning) {
				mu.Lock()
				msgs = append(msgs, fmt.Sprintf("%s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line))
				mu.Unlock()
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), msgs...)
	}
}

// testCharts checks the page's reading of query texts and formatting of values, in the browser.
func testCharts(t *testing.T, browser context.Context, base string) {
	tab, cancel := chromedp.NewContext(browser)
	defer cancel()
	if err := chromedp.Do(tab); err != nil { // opens the tab for the context's life
		t.Fatalf("opening a tab: %v", err)
	}
	p := &page{t: t, ctx: tab}
	p.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#login-form")))
	describe := []struct {
		expr, want string
	}{
		{"traffic", `[{"keys":[],"values":[{"name":"traffic","unit":"bytes"}]}]`},
		{`total traffic AS "Bytes", packets BY time(60), protocol WHERE application = "dns"; records`,
			`[{"keys":["time(60)","protocol"],"values":[{"name":"Bytes","unit":"bytes"},{"name":"packets","unit":"packets"}]},` +
				`{"keys":[],"values":[{"name":"records","unit":"count"}]}]`},
		{"client.traffic / traffic BY server.ip TOP 5", `[{"keys":["server.ip"],"values":[{"name":"client.traffic / traffic","unit":""}]}]`},
		{"traffic + packets WHERE (protocol = 'tcp' OR server.port IN (80, 443)) BY client.ip",
			`[{"keys":["client.ip"],"values":[{"name":"traffic + packets","unit":""}]}]`},
		{"traffic BY client.ip, time ( 300 ) SINCE @now-600;", `[{"keys":["client.ip","time(300)"],"values":[{"name":"traffic","unit":"bytes"}]}]`},
		{"", `[]`},
		{"p95(srt), srt, retrans BY application", `[{"keys":["application"],"values":[{"name":"p95(srt)","unit":"seconds"},{"name":"srt","unit":"seconds"},{"name":"retrans","unit":"count"}]}]`},
	}
	for _, tt := range describe {
		t.Run("describe "+tt.expr, func(t *testing.T) {
			p := &page{t: t, ctx: tab}
			js := fmt.Sprintf(`import('/charts.js').then(m => JSON.stringify(m.describeQuery(%q)))`, tt.expr)
			if got := p.eval(js); got != tt.want {
				t.Errorf("describeQuery(%q)\n got %s\nwant %s", tt.expr, got, tt.want)
			}
		})
	}
	rewrites := []struct {
		name, js, want string
	}{
		{"a preset", `P('traffic BY time(60)', {since: '@now-21600', until: '@now', span: 21600})`,
			"traffic BY time(60) SINCE @now-21600 UNTIL @now"},
		{"own period replaced, time widened", `P('traffic BY time(60) SINCE @now - 600 WHERE protocol = tcp; records UNTIL @now', {since: '1700000000', until: '1702592000', span: 2592000})`,
			"traffic BY time(7200)  WHERE protocol = tcp SINCE 1700000000 UNTIL 1702592000; records  SINCE 1700000000 UNTIL 1702592000"},
		{"filter ANDed to WHERE", `F('traffic BY application WHERE protocol = tcp OR protocol = udp TOP 5', 'application = "dns"')`,
			`traffic BY application WHERE (protocol = tcp OR protocol = udp) AND application = "dns" TOP 5`},
		{"filter of one statement", `F('traffic BY protocol; records', 'protocol = tcp', 1)`, "traffic BY protocol; records WHERE protocol = tcp"},
		{"drill-down in one statement", `x.drillQuery('traffic BY protocol; records BY protocol', [{name: 'protocol', value: 'udp'}], [{name: 'protocol', type: 'protocol'}], 1)`,
			"traffic BY protocol; records BY protocol WHERE protocol = udp"},
		{"error position maps back", `(() => { const e = 'traffic BY time(60) WHERE nosuch = 1'; const r = q.rewrite(e, q.periodEdits(e, {since: '1', until: '2592001', span: 2592000})); return String(r.toSource(r.text.indexOf('nosuch'))); })()`,
			"26"},
		{"drill-down breaks down by the next key", `x.drillQuery('traffic BY application, protocol TOP 5', [{name: 'application', value: 'dns'}, {name: 'protocol', value: 'udp'}], [])`,
			`traffic BY server.ip, server.port TOP 5 WHERE application = "dns" AND protocol = "udp"`},
		{"no filter twice", `x.drillQuery('traffic BY server.ip WHERE application = "dns"', [{name: 'application', value: 'dns'}], [])`,
			`traffic BY server.ip WHERE application = "dns"`},
		{"drill-down literals", `[x.drillQuery('traffic BY server.ip, application, time(60)', [{name: 'server.ip', value: '10.0.0.1'}, {name: 'application', value: 'a"b'}, {name: 'time(60)', value: 60}], [{name: 'server.ip', type: 'ip'}, {name: 'application', type: 'string'}]), x.drillQuery('records', [{name: 'protocol', value: 'tcp'}, {name: 'server.port', value: 443}], [{name: 'protocol', type: 'protocol'}])].join(' | ')`,
			`traffic BY server.ip, application, time(60) WHERE server.ip = 10.0.0.1 AND application = "a\"b" | records WHERE protocol = tcp AND server.port = 443`},
		{"drill-down from a country to its ASes", `x.drillQuery('traffic BY server.country TOP 10', [{name: 'server.country', value: 'FR'}], [{name: 'server.country', type: 'country'}, {name: 'server.asn', type: 'asn'}])`,
			`traffic BY server.asn TOP 10 WHERE server.country = "FR"`},
		{"drill-down from an AS, an interface, a zone", `[x.drillQuery('traffic BY client.asn', [{name: 'client.asn', value: {asn: 15169, name: 'GOOGLE'}}], [{name: 'client.asn', type: 'asn'}, {name: 'client.ip', type: 'ip'}]), x.drillQuery('traffic BY in_if', [{name: 'in_if', value: {index: 3, name: 'ge-0/0/1', alias: null}}], [{name: 'in_if', type: 'interface'}, {name: 'application', type: 'string'}]), x.drillQuery('traffic BY client.zone', [{name: 'client.zone', value: 'other'}], [{name: 'client.zone', type: 'zone'}, {name: 'client.ip', type: 'ip'}]), x.drillQuery('traffic BY server.country', [{name: 'server.country', value: null}], [])].join(' | ')`,
			`traffic BY client.ip WHERE client.asn = 15169 | traffic BY application WHERE in_if = 3 | traffic BY client.ip WHERE client.zone = "other" | traffic BY server.asn WHERE server.country = null`},
		{"context keys shown", `Promise.all([import('/format.js')]).then(([f]) => [f.formatKey('server.asn', {asn: 15169, name: 'GOOGLE'}), f.formatKey('in_if', {index: 3, name: 'ge-0/0/1', alias: 'uplink'}), f.formatKey('out_if', {index: 7, name: null, alias: null}), f.formatKey('client.country', 'FR').startsWith('\u{1F1EB}\u{1F1F7} '), f.formatKey('client.zone', 'other')].join(' | '))`,
			`AS15169 GOOGLE | ge-0/0/1 (uplink) | #7 | true | other`},
	}
	for _, tt := range rewrites {
		t.Run("rewrite "+tt.name, func(t *testing.T) {
			p := &page{t: t, ctx: tab}
			js := `Promise.all([import('/query.js'), import('/explore.js')]).then(([q, x]) => {
				const P = (e, b) => q.rewrite(e, q.periodEdits(e, b)).text;
				const F = (e, f, i) => q.rewrite(e, q.filterEdits(e, f, i)).text;
				return ` + tt.js + `; })`
			if got := p.eval(js); got != tt.want {
				t.Errorf("%s\n got %s\nwant %s", tt.js, got, tt.want)
			}
		})
	}
	// Wherever an answer is cut, the widget says how much: by the page (500 rows, 12 bars) or by
	// the query's TOP (meta.groups).
	rows := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `[["10.0.0.%d"],[%d]]`, i, 1000-i)
		}
		return "[" + b.String() + "]"
	}
	cuts := []struct {
		name, kind, data, meta, want string
	}{
		{"table cut by TOP", "table", rows(3), `{"groups":214861}`, "Showing 3 of 214,861 rows."},
		{"table cut by the page", "table", rows(501), `{}`, "Showing 500 of 501 rows."},
		{"table whole", "table", rows(3), `{}`, ""},
		{"bars cut by the page", "bar", rows(20), `{}`, "Showing 12 of 20 bars."},
		{"bars cut by TOP", "bar", rows(5), `{"groups":40}`, "Showing 5 of 40 bars."},
		{"pie cut by TOP", "pie", rows(5), `{"groups":40}`, "Showing 5 of 40 groups: shares are of these."},
	}
	for _, tt := range cuts {
		t.Run("cut "+tt.name, func(t *testing.T) {
			p := &page{t: t, ctx: tab}
			js := fmt.Sprintf(`import('/charts.js').then(m => { const el = document.createElement('div');
				m.render(el, %q, [{data: %s, meta: %s}], [{keys: ['client.ip'], values: [{name: 'traffic', unit: 'bytes'}]}]);
				return [...el.querySelectorAll('.cut-note')].map(e => e.textContent).join(' | '); })`, tt.kind, tt.data, tt.meta)
			if got := p.eval(js); got != tt.want {
				t.Errorf("the %s's cut note reads %q, want %q", tt.kind, got, tt.want)
			}
		})
	}
	// A response time without samples in a bucket is a gap; a volume's missing bucket is zero.
	for _, tt := range []struct{ name, unit, want string }{{"srt", "seconds", "2"}, {"traffic", "bytes", "1"}} {
		t.Run("gaps "+tt.name, func(t *testing.T) {
			p := &page{t: t, ctx: tab}
			js := fmt.Sprintf(`import('/charts.js').then(m => { const el = document.createElement('div');
				m.render(el, 'timeseries', [{data: [[[60],[0.04]],[[120],[0.05]],[[240],[0.06]]], meta: {}}],
					[{keys: ['time(60)'], values: [{name: %q, unit: %q}]}], {win: {since: 0, until: 240}});
				return String(el.querySelectorAll('path.series').length); })`, tt.name, tt.unit)
			if got := p.eval(js); got != tt.want {
				t.Errorf("a %s series with a missing bucket is drawn as %s lines, want %s", tt.unit, got, tt.want)
			}
		})
	}
	format := []struct {
		value, unit, want string
	}{
		{"220000", "bytes", "220 kB"},
		{"999", "bytes", "999 B"},
		{"1234567", "", "1.23M"},
		{"45600", "packets", "45.6k"},
		{"0.25", "", "0.25"},
		{"0", "bytes", "0 B"},
		{"null", "", "–"},
		{"-1500", "", "-1.50k"},
		{"0.0402", "seconds", "40.2 ms"},
		{"0.00035", "seconds", "0.35 ms"},
		{"0.01", "seconds", "10 ms"},
		{"12.5", "seconds", "12.5 s"},
		{"null", "seconds", "–"},
	}
	for _, tt := range format {
		t.Run("format "+tt.value+" "+tt.unit, func(t *testing.T) {
			p := &page{t: t, ctx: tab}
			js := fmt.Sprintf(`import('/charts.js').then(m => m.formatValue(%s, %q))`, tt.value, tt.unit)
			if got := p.eval(js); got != tt.want {
				t.Errorf("formatValue(%s, %q) = %q, want %q", tt.value, tt.unit, got, tt.want)
			}
		})
	}
}
