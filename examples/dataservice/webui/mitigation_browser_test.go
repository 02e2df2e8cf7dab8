package webui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestBrowserMitigation runs the service with its BGP speaker on (-bgp) and mitigation_zones
// naming the zone of the known records' server: an administrator creates on the Alerts page a
// rule that announces a blackhole route; the rule shows its BGP channel, and the history the
// route announced with its next hop as soon as the rule fires.
func TestBrowserMitigation(t *testing.T) {
	t.Parallel()
	chrome := testenv.Chromium(t)
	srv, _, _ := startServiceWith(t, app.Config{BGP: bgp.Config{Listen: fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t)),
		AS: 64500, Peers: []netip.Prefix{netip.MustParsePrefix("127.0.0.5/32")}}})
	ctx := context.Background()
	admin := newSession(t, srv)
	if _, err := client.Call(ctx, admin, api.SetZone, api.SetZoneArgs{Name: "Customers", Networks: []string{"198.51.100.0/24"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Call(ctx, admin, api.SetConfig, api.SetConfigArgs{Values: map[string]json.RawMessage{
		"mitigation_zones": json.RawMessage(`["Customers"]`)}}); err != nil {
		t.Fatal(err)
	}
	ingestKnown(t, srv)
	browser := testenv.Browser(t, chrome)
	p, problems := openTab(t, browser)
	p.signIn(srv.URL + "/")
	p.goTo("#/alerts")
	p.do(chromedp.WaitVisible(chromedp.CSS("#alert-bgp")),
		chromedp.SetValue(chromedp.CSS("#alert-name"), "flood"),
		chromedp.SetValue(chromedp.CSS("#alert-query"), "traffic BY server.ip HAVING traffic > 1000 SINCE @now-3600"),
		chromedp.SetValue(chromedp.CSS("#alert-interval"), "10s"),
		chromedp.SetValue(chromedp.CSS("#alert-bgp"), "blackhole"),
		chromedp.Click(chromedp.CSS("#alert-create")))
	p.poll(`document.getElementById('alert-rules').textContent.includes('BGP blackhole')`)
	p.poll(`document.getElementById('alert-history').textContent.includes('blackhole 198.51.100.1/32 via 192.0.2.1')`)
	if got := p.text("#alert-history"); !strings.Contains(got, "announced") {
		t.Errorf("the history says %q", got)
	}
	p.screenshot(filepath.Join(shotDir(t), "alerts-mitigation.png"))
	if msgs := problems(); len(msgs) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
	}
}
