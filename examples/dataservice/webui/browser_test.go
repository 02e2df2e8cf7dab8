package webui_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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
//
// Not parallel, as every test of the demo's traffic: its backfill (a day of records) under
// -race takes most of a 2-core machine, and two at once missed waitDemo's 3 minutes at load
// average 35.
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
