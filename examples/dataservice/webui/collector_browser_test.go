package webui_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestBrowserCollector opens the collector's view (#/collector, from the navigation) of a
// service that collects NetFlow, sees no exporter, has softflowd export a capture to it, and
// waits for the view to show the exporter on its own (it asks collector-status again every few
// seconds); checks the light, dark and 360 px pages for AA contrast and overflow, that leaving
// the view stops its calls, and that a service without a collector says so.
func TestBrowserCollector(t *testing.T) {
	t.Parallel()
	chrome := testenv.Chromium(t)
	testenv.Need(t, "softflowd", "softflowd")
	srv, hits, a := startServiceWith(t, app.Config{Inlet: inlet.Configuration{NetFlow: "127.0.0.1:0"}})
	netflow, _ := a.FlowAddrs()
	browser := testenv.Browser(t, chrome)
	p, problems := openTab(t, browser)
	shots := shotDir(t)

	p.signIn(srv.URL + "/")
	p.do(chromedp.Click(chromedp.CSS("#nav-collector")), chromedp.WaitVisible(chromedp.CSS("#collector-status")))
	p.poll(`location.hash === '#/collector' && document.getElementById('nav-collector').getAttribute('aria-current') === 'page'`)
	if got := p.text("#collector-listen"); got != "NetFlow on "+netflow {
		t.Errorf("the view says it listens for %q, want NetFlow on %s", got, netflow)
	}
	p.do(chromedp.WaitVisible(chromedp.CSS("#collector-none")))

	pcap, _ := testenv.Conversation(t, time.Now().Add(-time.Minute).Truncate(time.Second), 20)
	testenv.Softflowd(t, pcap, netflow, 9)
	row := `#collector-body tr[data-exporter="127.0.0.1"]`
	p.poll(fmt.Sprintf(`document.querySelector(%q)?.querySelector('td[data-label=Flows]').textContent === '2'`, row))
	cells := p.eval(fmt.Sprintf(`[...document.querySelector(%q).cells].map(c => (c.dataset.label || 'Exporter') + '=' + c.textContent).join('|')`, row))
	for _, want := range []string{"Exporter=127.0.0.1", "Protocols=NetFlow v9", "Dropped=0", "Errors=0", "Last seen="} {
		if !strings.Contains(cells, want) {
			t.Errorf("the exporter's row lacks %q: %s", want, cells)
		}
	}
	if got := p.eval(`[...document.querySelectorAll('#collector-head th')].map(th => th.scope + ':' + th.textContent).join(' ')`); !strings.HasPrefix(got, "col:Exporter col:Protocols col:Flows/s") {
		t.Errorf("the table's head is %q", got)
	}
	if got := p.text("#collector-totals"); !strings.Contains(got, "Exporters") || !strings.Contains(got, "1 of at most 1,000") {
		t.Errorf("the totals say %q", got)
	}

	for _, theme := range []string{"light", "dark"} {
		p.colorScheme(theme)
		for _, width := range []int64{1440, 360} {
			p.do(chromedp.EmulateViewport(width, 900), chromedp.Sleep(300*time.Millisecond))
			if got := p.eval(`String(document.documentElement.scrollWidth)`); width == 360 && got != "360" {
				t.Errorf("%s at 360 px the view is %s px wide", theme, got)
			}
			if bad := p.eval(lowContrast); bad != "" {
				t.Errorf("%s at %d px: text below AA contrast:\n%s", theme, width, bad)
			}
			p.screenshot(filepath.Join(shots, fmt.Sprintf("collector-%s-%d.png", theme, width)))
		}
	}
	p.do(chromedp.EmulateViewport(1440, 1000))

	// Leaving the view stops its refreshing.
	p.goTo("#/")
	p.do(chromedp.WaitVisible(chromedp.CSS("#list-view")))
	before := hits.count("/api/collector-status")
	p.do(chromedp.Sleep(6 * time.Second)) // longer than the view's refresh interval
	if after := hits.count("/api/collector-status"); after != before {
		t.Errorf("after leaving the view, collector-status was called %d more times", after-before)
	}
	if msgs := problems(); len(msgs) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
	}

	// A service that collects nothing says how to start the collector.
	plain, _, _ := startServiceWith(t, app.Config{})
	q, _ := openTab(t, browser)
	q.signIn(plain.URL + "/")
	q.goTo("#/collector")
	q.do(chromedp.WaitVisible(chromedp.CSS("#collector-disabled")))
	if got := q.text("#collector-disabled"); !strings.Contains(got, "-netflow ADDR") {
		t.Errorf("without a collector the view says %q", got)
	}
	q.screenshot(filepath.Join(shots, "collector-disabled.png"))
}

// startServiceWith opens the data service with cfg (its data directory and authentication set
// here) and serves it over HTTPS (HTTP/2, as the real server does), counting the requests of
// each path.
func startServiceWith(t *testing.T, cfg app.Config) (*httptest.Server, *requests, *app.App) {
	ctx := context.Background()
	cfg.DataDir = t.TempDir()
	cfg.Auth = []auth.Option{auth.WithArgon2(auth.Argon2{Memory: 64, Iterations: 1}), auth.WithAdminPassword(adminPassword)}
	a, err := app.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	hits := &requests{paths: map[string]int{}}
	srv := httptest.NewUnstartedServer(hits.wrap(a.Handler()))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(func() {
		srv.Close()
		if err := a.Close(ctx); err != nil {
			t.Errorf("closing the service: %v", err)
		}
	})
	return srv, hits, a
}

// colorScheme makes the tab's pages see the system's colour scheme as theme ("light", "dark").
func (p *page) colorScheme(theme string) {
	p.t.Helper()
	p.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: theme}}})
		return err
	}))
}

// TestBrowserCollectorCapture opens the collector's view of a service whose capture probe reads
// a capture file and collects no flows: the view names the file and shows the probe's packets,
// its kernel ring's drops, its conversation table's evictions and its layers' records (none
// here), besides saying that no flow collector runs; light, dark and 360 px for AA contrast and
// overflow.
func TestBrowserCollectorCapture(t *testing.T) {
	t.Parallel()
	chrome := testenv.Chromium(t)
	// Two seconds within one minute: one record.
	pcap, pkts := testenv.Conversation(t, time.Now().Add(-2*time.Minute).Truncate(time.Minute), 20)
	srv, _, _ := startServiceWith(t, app.Config{Inlet: inlet.Configuration{CaptureFile: pcap}})
	browser := testenv.Browser(t, chrome)
	p, problems := openTab(t, browser)
	shots := shotDir(t)

	p.signIn(srv.URL + "/")
	p.goTo("#/collector")
	p.do(chromedp.WaitVisible(chromedp.CSS("#collector-capture")))
	if got := p.text("#collector-capture-sources"); got != pcap {
		t.Errorf("the probe's sources are %q, want %s", got, pcap)
	}
	// The file is read at once; the view asks again every few seconds until it shows it all.
	p.poll(fmt.Sprintf(`document.querySelector('[data-capture=packets] .stat-value')?.textContent === '%d'`, len(pkts)))
	tile := func(key string) string {
		return p.eval(fmt.Sprintf(`document.querySelector('[data-capture=%s]').textContent + (document.querySelector('[data-capture=%s]').classList.contains('bad') ? ' (bad)' : '')`, key, key))
	}
	for key, want := range map[string]string{"drops": "Ring drops0None by the kernel’s capture ring", "evicted": "Table evictions0None: the conversation table had room",
		"records": "Records11 stored", "packets": "Packets201 of 1 sources finished",
		"http": "HTTP requests0Requests in clear, each a record", "tls": "TLS handshakes0Handshakes, each a record"} {
		if got := tile(key); got != want {
			t.Errorf("the %s tile says %q, want %q", key, got, want)
		}
	}
	if p.eval(`String(document.getElementById('collector-disabled').hidden)`) != "false" {
		t.Error("the view does not say that no flow collector runs")
	}
	for _, theme := range []string{"light", "dark"} {
		p.colorScheme(theme)
		for _, width := range []int64{1440, 360} {
			p.do(chromedp.EmulateViewport(width, 900), chromedp.Sleep(300*time.Millisecond))
			if got := p.eval(`String(document.documentElement.scrollWidth)`); width == 360 && got != "360" {
				t.Errorf("%s at 360 px the view is %s px wide", theme, got)
			}
			if bad := p.eval(lowContrast); bad != "" {
				t.Errorf("%s at %d px: text below AA contrast:\n%s", theme, width, bad)
			}
			p.screenshot(filepath.Join(shots, fmt.Sprintf("collector-capture-%s-%d.png", theme, width)))
		}
	}
	if msgs := problems(); len(msgs) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
	}
}
