package webui_test

import (
	"fmt"
	"net/url"
	"strings"
)

// checkLayers checks the demo's application layers in the console: the Application performance
// dashboard (at id) draws its HTTP and DNS views with rows (404s, wpad's
// NXDOMAIN among them), and the drill-down from an application in Explore leads to its slowest
// HTTP paths (http: www.example.com's) and to its failing names (dns), each a step of the
// drill-down path.
func (p *page) checkLayers(id string) {
	p.t.Helper()
	p.goTo("#/d/" + id)
	view := func(title string) string {
		return fmt.Sprintf(`[...document.querySelectorAll('#dashboard-view .widget')].find(w => w.querySelector('h3')?.textContent === %q)`, title)
	}
	for _, w := range []struct{ title, rows, want string }{
		{"HTTP: slowest paths (p95)", "tr.pick", "http.path"}, // which are slowest depends on the incident
		{"HTTP: requests by status", ".bar-row.pick", "404"},  // 5xx are rare in a quiet hour
		{"HTTP: errors by path (4xx, 5xx)", "tr.pick", "404"},
		{"DNS: queries by answer", "tr.pick", "NXDOMAIN"},
		{"DNS: failing names", "tr.pick", "wpad.corp.example"},
	} {
		p.poll(fmt.Sprintf(`(() => { const w = %s; return w && w.querySelectorAll(%q).length > 0 })()`, view(w.title), w.rows))
		if got := p.eval(fmt.Sprintf(`%s.querySelector('.widget-body').textContent`, view(w.title))); !strings.Contains(got, w.want) {
			p.t.Errorf("widget %q shows %q, want %s among its rows", w.title, got, w.want)
		}
	}
	for _, d := range []struct{ app, button, query, head, want string }{
		{"http", "Slowest HTTP paths", `FROM http WHERE application = "http"`, "http.host", "www.example.com"},
		{"dns", "DNS failures", `FROM dns WHERE dns.rcode IN (NXDOMAIN, SERVFAIL, timeout) AND application = "dns"`, "dns.qname", "wpad.corp.example"},
	} {
		p.goTo("#/explore?q=" + url.QueryEscape("records BY application TOP 20"))
		row := fmt.Sprintf(`[...document.querySelectorAll('#explore-chart tr.pick')].find(r => r.querySelector('td')?.textContent === %q)`, d.app)
		p.poll(row)
		p.eval(fmt.Sprintf(`(%s.click(), '')`, row))
		button := fmt.Sprintf(`[...document.querySelectorAll('#explore-layers button')].find(b => b.textContent === %q)`, d.button)
		p.poll(fmt.Sprintf(`!document.getElementById('explore-layers').hidden && %s`, button))
		p.eval(fmt.Sprintf(`(%s.click(), '')`, button))
		// The answer of the layer's statement, not the one before it, and the path's step.
		path := fmt.Sprintf("application = %s›%s", d.app, d.button)
		p.poll(fmt.Sprintf(`document.getElementById('explore-input').value.includes(%q) && document.querySelector('#explore-chart th')?.textContent.startsWith(%q) && document.getElementById('explore-path').textContent.endsWith(%q)`,
			d.query, d.head, path))
		if got := p.eval(`document.getElementById('explore-chart').textContent`); !strings.Contains(got, d.want) {
			p.t.Errorf("%s of application %s: the answer shows %q, want %s", d.button, d.app, got, d.want)
		}
	}
}
