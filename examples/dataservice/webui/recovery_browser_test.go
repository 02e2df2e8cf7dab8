package webui_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestBrowserRecovery restarts the service as an upgrade does (SIGTERM: the WebSocket's
// followed queries end with CANCELLED "the server is shutting down", the connections close,
// the stores close; then the same data directory opens again on the same address) under a
// live dashboard open in two tabs, one over the WebSocket and one over HTTP streaming. While
// the service is away every widget keeps its last answer and says it is reconnecting, never
// an error code; once the service answers again every widget resumes without a reload.
func TestBrowserRecovery(t *testing.T) {
	chrome := testenv.Chromium(t)
	t.Setenv("SVC_ADMIN_PASSWORD", adminPassword)
	svc := &restartable{t: t, dir: t.TempDir()}
	svc.start()
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // self-signed
	ingestKnownAt(t, insecure, svc.url())
	browser := testenv.Browser(t, chrome)
	shots := shotDir(t)

	ws, wsProblems := openTab(t, browser)
	ws.signIn(svc.url() + "/?live=ws")
	ws.createDashboard("Wall screen")
	widgets := []struct{ title, kind, query string }{
		{"Traffic", "number", "traffic"},
		{"Traffic over time", "timeseries", "traffic BY time(60) WHERE client.ip IN " + knownClients},
		{"Applications", "bar", "traffic BY application TOP 8"},
		{"Protocols", "pie", "traffic BY protocol"},
		{"Servers", "table", "traffic BY server.ip TOP 10"},
	}
	for _, w := range widgets {
		ws.addWidget(w.title, w.kind, w.query)
	}
	dashboard := ws.eval(`location.hash`)
	httpTab, httpProblems := openTab(t, browser)
	httpTab.signIn(svc.url() + "/?live=http")
	httpTab.goTo(dashboard)
	tabs := map[string]*page{"ws": ws, "http": httpTab}
	allLive := fmt.Sprintf(`(() => { const u = [...document.querySelectorAll('.widget-foot .updated')];
		return u.length === %d && u.every(e => e.textContent.startsWith('Updated')) &&
			!document.querySelector('.widget.reconnecting'); })()`, len(widgets))
	for _, p := range tabs {
		p.poll(allLive)
		p.poll(allLive + ` && [...document.querySelectorAll('#widget-grid .widget-body')].every(b => b.querySelector('svg, .big-value, table'))`)
	}

	svc.stop()
	for name, p := range tabs {
		p.poll(fmt.Sprintf(`document.querySelectorAll('.widget.reconnecting').length === %d`, len(widgets)))
		// The last answers stay on screen, with a calm note and no error.
		if got := p.eval(`String([...document.querySelectorAll('#widget-grid .widget-body')].filter(b => b.querySelector('svg, .big-value, table')).length)`); got != fmt.Sprint(len(widgets)) {
			t.Errorf("%s: %s of %d widgets still show their answer while the service is away", name, got, len(widgets))
		}
		if got := p.eval(`[...document.querySelectorAll('.widget-error')].map(e => e.textContent).join(' | ')`); got != "" {
			t.Errorf("%s: widgets show errors while the service is away: %s", name, got)
		}
		if got := p.text("#live-state"); got != "Reconnecting…" {
			t.Errorf("%s: the live state says %q while the service is away", name, got)
		}
		if got := p.text(".widget .reconnecting-note"); got != "Reconnecting…" {
			t.Errorf("%s: a widget's foot says %q while the service is away", name, got)
		}
	}
	ws.screenshot(filepath.Join(shots, "recovery-reconnecting.png"))

	svc.start()
	back := time.Now()
	for name, p := range tabs {
		since := p.eval(`String(Date.now())`)
		p.poll(allLive + fmt.Sprintf(` && [...document.querySelectorAll('.widget-foot .updated')].every(e => +e.dataset.at > %s)`, since))
		t.Logf("%s: every widget answered again %.1f s after the service was back", name, time.Since(back).Seconds())
		if got := p.text("#live-state"); got != "Live" {
			t.Errorf("%s: the live state says %q after the restart", name, got)
		}
	}
	ws.screenshot(filepath.Join(shots, "recovery-resumed.png"))
	for name, problems := range map[string]func() []string{"ws": wsProblems, "http": httpProblems} {
		var msgs []string
		for _, m := range problems() {
			// The browser logs the refused connections of its tries while the service is away.
			if !strings.Contains(m, "net::ERR_CONNECTION_") && !strings.Contains(m, "WebSocket connection to") {
				msgs = append(msgs, m)
			}
		}
		if len(msgs) > 0 {
			t.Errorf("%s: the page logged problems:\n%s", name, strings.Join(msgs, "\n"))
		}
	}
}

// restartable is the data service as main runs it (fnapi.Server over app.App, demo traffic),
// which stops as on SIGTERM and starts again on the same data directory and address.
type restartable struct {
	t           *testing.T
	dir         string
	addr        string
	stopServing context.CancelFunc
	done        chan error
	a           *app.App
}

func (s *restartable) url() string { return "https://" + s.addr }

func (s *restartable) start() {
	t := s.t
	ctx := context.Background()
	a, err := app.Open(ctx, app.Config{Demo: true, DataDir: s.dir,
		Auth: []auth.Option{auth.WithArgon2(auth.Argon2{Memory: 64, Iterations: 1})}})
	if err != nil {
		t.Fatal(err)
	}
	addr := s.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	serveCtx, stop := context.WithCancel(ctx)
	s.a, s.stopServing, s.done = a, stop, make(chan error, 1)
	srv := &fnapi.Server{Handler: a.Handler(), DataDir: s.dir, ShutdownTimeout: 5 * time.Second}
	go func() { s.done <- srv.Serve(serveCtx, ln) }()
	t.Cleanup(s.stop)
}

// stop does what main does on SIGTERM: the node answers not ready, the server stops serving
// (the WebSockets' followed queries end with CANCELLED), and the service closes.
func (s *restartable) stop() {
	if s.a == nil {
		return
	}
	s.a.Drain()
	s.stopServing()
	if err := <-s.done; err != nil {
		s.t.Errorf("serving: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.a.Close(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		s.t.Errorf("closing the service: %v", err)
	}
	s.a = nil
}
