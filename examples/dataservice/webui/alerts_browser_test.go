package webui_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestBrowserAlerts creates an alert rule from an Explore query, sees it fire on the Alerts
// page and in the section bar's badge, acknowledges it, finds the transition in the history,
// and the marker where it fired on a time series.
func TestBrowserAlerts(t *testing.T) {
	chrome := testenv.Chromium(t)
	srv, _, _ := startServiceWith(t, app.Config{})
	ingestKnown(t, srv)
	browser := testenv.Browser(t, chrome)
	p, problems := openTab(t, browser)
	shots := shotDir(t)

	p.signIn(srv.URL + "/")
	p.goTo("#/explore")
	p.do(chromedp.WaitVisible(chromedp.CSS("#explore-input")),
		chromedp.SetValue(chromedp.CSS("#explore-input"), "traffic BY server.ip HAVING traffic > 1000 SINCE @now-3600"),
		chromedp.Click(chromedp.CSS("#explore-alert")),
		chromedp.WaitVisible(chromedp.CSS("#alert-form")))
	if got := p.eval(`document.getElementById('alert-query').value`); !strings.HasPrefix(got, "traffic BY server.ip HAVING") {
		t.Fatalf("the new rule's query is %q, want Explore's", got)
	}
	p.do(chromedp.SetValue(chromedp.CSS("#alert-name"), "busy server"),
		chromedp.SetValue(chromedp.CSS("#alert-interval"), "10s"),
		chromedp.Click(chromedp.CSS("#alert-create")))
	p.poll(`document.querySelector('#alert-rules tr td')?.textContent === 'busy server'`)
	// The evaluator checks every second and the view asks again every 5 s.
	p.poll(`document.querySelector('#alert-firing tr')?.textContent.includes('198.51.100.1')`)
	p.poll(`document.getElementById('alerts-badge').textContent === '1' && !document.getElementById('alerts-badge').hidden`)
	p.do(chromedp.Click(chromedp.CSS("#alert-firing tr button")))
	p.poll(`document.querySelector('#alert-firing tr')?.textContent.includes('(acknowledged)')`)
	if got := p.text("#alert-history"); !strings.Contains(got, "firing") || !strings.Contains(got, "198.51.100.1") {
		t.Errorf("the history says %q", got)
	}
	p.screenshot(filepath.Join(shots, "alerts.png"))

	p.goTo("#/explore?q=" + "traffic%20BY%20time(60)")
	p.poll(`document.querySelector('#explore-chart svg .alert-marker') !== null`)
	if msgs := problems(); len(msgs) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
	}
}
