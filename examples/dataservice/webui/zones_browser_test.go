package webui_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// testZones drives the zones and applications view: the forms say what is wrong as it is
// typed and refuse to save it; what they save is what list-zones and list-applications answer.
func testZones(t *testing.T, browser context.Context, srv *httptest.Server) {
	p, problems := openTab(t, browser)
	p.signIn(srv.URL + "/")
	p.openMenu("#zones-link", "#zones-view")

	p.do(
		chromedp.SendKeys(chromedp.CSS("#zone-name"), "Customers/ACME"),
		chromedp.SendKeys(chromedp.CSS("#zone-networks"), "192.0.2.1/24"),
	)
	p.poll(`document.getElementById('zone-check').textContent.includes('host bits') && document.getElementById('zone-save').disabled`)
	p.screenshot(filepath.Join(os.TempDir(), "fnapi-webui-zone-check.png"))
	p.do(
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#zone-networks').value = ''`),
		chromedp.SendKeys(chromedp.CSS("#zone-networks"), "192.0.2.0/24\n2001:db8::/32"),
	)
	p.poll(`document.getElementById('zone-check').hidden && !document.getElementById('zone-save').disabled`)
	p.do(chromedp.Click(chromedp.CSS("#zone-save")))
	p.poll(`document.querySelector('tr[data-zone="Customers/ACME"] .networks')?.textContent === '192.0.2.0/24, 2001:db8::/32'`)

	p.do(
		chromedp.SendKeys(chromedp.CSS("#app-name"), "batch"),
		chromedp.SendKeys(chromedp.CSS("#app-rules .rule-ports"), "8100-8000"),
	)
	p.poll(`document.getElementById('app-check').textContent.includes('never match') && document.getElementById('app-save').disabled`)
	p.do(
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#app-rules .rule-ports').value = ''`),
		chromedp.SendKeys(chromedp.CSS("#app-rules .rule-ports"), "8000-8100"),
		chromedp.SendKeys(chromedp.CSS("#app-rules .rule-client-zone"), "Nowhere"),
	)
	p.poll(`document.getElementById('app-check').textContent.includes('no zone “Nowhere”')`)
	p.do(
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#app-rules .rule-client-zone').value = ''`),
		chromedp.SendKeys(chromedp.CSS("#app-rules .rule-client-zone"), "Customers"),
	)
	p.poll(`document.getElementById('app-check').hidden && !document.getElementById('app-save').disabled`)
	p.do(chromedp.Click(chromedp.CSS("#app-save")))
	p.poll(`document.querySelector('tr[data-app="batch"] .rules')?.textContent === '8000-8100, client in Customers'`)
	p.screenshot(filepath.Join(os.TempDir(), "fnapi-webui-zones.png"))

	c := newSession(t, srv)
	// The demo's zones and applications are there too.
	zones, err := client.Call(context.Background(), c, api.ListZones, decl.None{})
	i := slices.IndexFunc(zones, func(z api.Zone) bool { return z.Name == "Customers/ACME" })
	if err != nil || i < 0 || strings.Join(zones[i].Networks, " ") != "192.0.2.0/24 2001:db8::/32" {
		t.Errorf("list-zones after the page saved: %+v, %v", zones, err)
	}
	apps, err := client.Call(context.Background(), c, api.ListApplications, decl.None{})
	i = slices.IndexFunc(apps, func(a api.Application) bool { return a.Name == "batch" })
	if err != nil || i < 0 || apps[i].Rules[0].Ports != "8000-8100" || apps[i].Rules[0].ClientZone != "Customers" {
		t.Errorf("list-applications after the page saved: %+v, %v", apps, err)
	}
	// The Collector view shows what SNMP polls: the exporter's name.
	agent := testenv.StartSNMPD(t)
	snmp := map[string]any{"exporters": []map[string]any{{"address": "127.0.0.1", "port": agent.Port, "version": "2c", "community": testenv.SNMPCommunity}}}
	if err := c.Call(context.Background(), "set-config", map[string]any{"values": map[string]any{"snmp": snmp}}, nil); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.Evaluate[chromedp.Void](`location.hash = '#/collector'`), chromedp.WaitVisible(chromedp.CSS("#collector-view")))
	p.poll(`document.querySelector('tr[data-snmp="127.0.0.1"] td')?.textContent === '` + testenv.SNMPSysName + `'`)
	p.poll(`!!document.querySelector('tr[data-snmp="127.0.0.1"] .snmp-answer time')`) // when it answered
	p.screenshot(filepath.Join(os.TempDir(), "fnapi-webui-collector-snmp.png"))

	if msgs := problems(); len(msgs) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
	}
}
