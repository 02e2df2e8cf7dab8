package webui_test

import (
	"context"
	"net"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestBrowserNetworkCut cuts the network between the browser and the service without closing
// anything, as a pulled cable or a dead router does: a TCP proxy between them stops passing
// bytes. Nothing tells the page; it must take its connections, silent for 30 s, for dead,
// show every widget reconnecting with its last answer, and resume once bytes pass again,
// over the WebSocket and over HTTP streaming alike, without a reload.
//
// Not parallel, as every test of the demo's traffic: its backfill (a day of records) under
// -race takes most of a 2-core machine, and two at once missed waitDemo's 3 minutes at load
// average 35.
func TestBrowserNetworkCut(t *testing.T) {
	chrome := testenv.Chromium(t)
	srv, _ := startService(t)
	ingestKnown(t, srv)
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := startCutProxy(t, target.Host)
	base := "https://" + proxy.addr()
	browser := testenv.Browser(t, chrome)
	shots := shotDir(t)

	live := openLiveTabs(t, browser, base, "Cut", []widgetSpec{
		{"Traffic", "number", "traffic"},
		{"Traffic over time", "timeseries", "traffic BY time(60) WHERE client.ip IN " + knownClients},
		{"Servers", "table", "traffic BY server.ip TOP 10"},
	})

	proxy.freeze()
	live.expectReconnecting("after the cut", time.Minute)
	live.tabs["ws"].screenshot(filepath.Join(shots, "cut-reconnecting.png"))
	proxy.resume()
	live.expectResumed("after the network was back")
	live.tabs["ws"].screenshot(filepath.Join(shots, "cut-resumed.png"))
	live.expectNoProblems()
}

// pollLong waits up to timeout until the expression is true.
func (p *page) pollLong(js string, timeout time.Duration) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, timeout+5*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(200*time.Millisecond),
		chromedp.WithPollingTimeout(timeout))); err != nil {
		p.t.Fatalf("browser: waiting for %s: %v", js, err)
	}
}

// cutProxy passes TCP connections to a target, and while frozen passes no byte either way
// (connections stay open, new ones are accepted and dialled), as a network cut does.
type cutProxy struct {
	ln     net.Listener
	mu     sync.Mutex
	frozen bool
	thawed *sync.Cond
}

func startCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln}
	p.thawed = sync.NewCond(&p.mu)
	var wg sync.WaitGroup
	var conns sync.Map
	t.Cleanup(func() {
		ln.Close()
		p.resume()
		conns.Range(func(c, _ any) bool { c.(net.Conn).Close(); return true })
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			conns.Store(c, true)
			conns.Store(s, true)
			wg.Add(2)
			go func() { defer wg.Done(); p.pass(s, c) }()
			go func() { defer wg.Done(); p.pass(c, s) }()
		}
	}()
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

// pass copies from src to dst, holding each chunk while the proxy is frozen; it closes both
// when either ends.
func (p *cutProxy) pass(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			for p.frozen {
				p.thawed.Wait()
			}
			p.mu.Unlock()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil { // io.EOF or a closed connection alike
			return
		}
	}
}

func (p *cutProxy) freeze() {
	p.mu.Lock()
	p.frozen = true
	p.mu.Unlock()
}

func (p *cutProxy) resume() {
	p.mu.Lock()
	p.frozen = false
	p.thawed.Broadcast()
	p.mu.Unlock()
}
