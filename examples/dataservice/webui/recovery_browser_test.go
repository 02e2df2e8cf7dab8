package webui_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestBrowserRecovery restarts the service as an upgrade does (SIGTERM: the WebSocket's
// followed queries end with CANCELLED "the server is shutting down", the connections close,
// the stores close; then the same data directory opens again on the same address) under a
// live dashboard open in two tabs, one over the WebSocket and one over HTTP streaming. While
// the service is away every widget keeps its last answer and says it is reconnecting, never
// an error code; once the service answers again every widget resumes without a reload.
//
// Not parallel: the service opens again on the address it had, which a parallel test's
// listener could take in between.
func TestBrowserRecovery(t *testing.T) {
	chrome := testenv.Chromium(t)
	t.Setenv("SVC_ADMIN_PASSWORD", adminPassword)
	svc := &restartable{t: t, dir: t.TempDir()}
	svc.start()
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // self-signed
	ingestKnownAt(t, insecure, svc.url())
	browser := testenv.Browser(t, chrome)
	shots := shotDir(t)

	live := openLiveTabs(t, browser, svc.url(), "Wall screen", []widgetSpec{
		{"Traffic", "number", "traffic"},
		{"Traffic over time", "timeseries", "traffic BY time(60) WHERE client.ip IN " + knownClients},
		{"Applications", "bar", "traffic BY application TOP 8"},
		{"Protocols", "pie", "traffic BY protocol"},
		{"Servers", "table", "traffic BY server.ip TOP 10"},
	})

	svc.stop()
	live.expectReconnecting("after the service stopped", 25*time.Second)
	live.tabs["ws"].screenshot(filepath.Join(shots, "recovery-reconnecting.png"))
	svc.start()
	live.expectResumed("after the service was back")
	live.tabs["ws"].screenshot(filepath.Join(shots, "recovery-resumed.png"))
	live.expectNoProblems()
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
	a, err := app.Open(ctx, app.Config{DataDir: s.dir,
		Auth: []auth.Option{auth.WithArgon2(auth.Argon2{Memory: 64, Iterations: 1})}, Inlet: inlet.Configuration{Demo: true}})
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
