package webui_test

import (
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestBrowserCollectorBGP opens the collector's view of a service with -bgp whose router,
// gobgpd, sends a route, and which a router outside -bgp-peers tried: the view lists the
// session established with its AS and route, and the refused router; light, dark and 360 px
// for AA contrast and overflow.
func TestBrowserCollectorBGP(t *testing.T) {
	t.Parallel()
	chrome := testenv.Chromium(t)
	testenv.Need(t, "gobgpd", "gobgpd")
	port := testenv.FreePort(t)
	srv, _, _ := startServiceWith(t, app.Config{BGP: bgp.Config{Listen: fmt.Sprintf("127.0.0.1:%d", port), AS: 64500,
		Peers: []netip.Prefix{netip.MustParsePrefix("127.0.0.16/32")}}})
	g := testenv.StartGoBGPD(t, "127.0.0.16", 64616, port, 64500)
	g.CLI("global", "rib", "add", "198.51.100.0/24", "aspath", "64617", "nexthop", "127.0.0.16")
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.17")}}
	if c, err := d.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
		c.Close()
	}
	browser := testenv.Browser(t, chrome)
	p, problems := openTab(t, browser)
	shots := shotDir(t)

	p.signIn(srv.URL + "/")
	p.goTo("#/collector")
	p.do(chromedp.WaitVisible(chromedp.CSS("#collector-bgp-card")))
	row := func(addr string) string {
		return fmt.Sprintf(`[...(document.querySelector('#collector-bgp-body tr[data-bgp="%s"]')?.cells || [])].map(c => c.textContent).join('|')`, addr)
	}
	// The view asks again every few seconds until the session is up with its route.
	p.poll(row("127.0.0.16") + ` .startsWith('127.0.0.16|64616|established|1|')`)
	p.poll(row("127.0.0.17") + ` === '127.0.0.17|–|refused: outside -bgp-peers|0|–'`)
	if got := p.eval(`document.querySelector('#collector-bgp-body tr[data-bgp="127.0.0.16"] td[data-label=Since] time')?.getAttribute('datetime') || ''`); !strings.HasPrefix(got, time.Now().UTC().Format("2006-")) {
		t.Errorf("the session's Since cell holds the time %q", got)
	}
	if got := p.eval(`document.querySelector('#collector-bgp-body tr[data-bgp="127.0.0.17"] .bgp-state').classList.contains('bad') ? 'bad' : ''`); got != "bad" {
		t.Error("the refused router's state does not show as bad")
	}
	if got := p.eval(`String(document.getElementById('collector-disabled').hidden)`); got != "false" {
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
			p.screenshot(filepath.Join(shots, fmt.Sprintf("collector-bgp-%s-%d.png", theme, width)))
		}
	}
	if msgs := problems(); len(msgs) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
	}
}
