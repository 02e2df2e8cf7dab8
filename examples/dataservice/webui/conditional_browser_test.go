package webui_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestBrowserConditionalReads: the console's repeated polls of what did not change are
// answered 304 without a body, and show the same: the collector's view asking
// collector-status every few seconds, and the list of dashboards shown again.
func TestBrowserConditionalReads(t *testing.T) {
	t.Parallel()
	chrome := testenv.Chromium(t)
	srv, _, _ := startServiceWith(t, app.Config{Inlet: inlet.Configuration{NetFlow: "127.0.0.1:0"}})
	browser := testenv.Browser(t, chrome)
	p, problems := openTab(t, browser)
	p.signIn(srv.URL + "/")
	// Each answer's status and path, as the page's own code gets them.
	p.eval(`window.answers = [], window.realFetch = window.fetch, window.fetch = async (...a) => {
		const res = await window.realFetch(...a);
		window.answers.push(res.status + ' ' + new URL(String(a[0]), location.href).pathname);
		return res;
	}, ''`)
	p.do(chromedp.Click(chromedp.CSS("#nav-collector")), chromedp.WaitVisible(chromedp.CSS("#collector-status")))
	p.poll(`answers.includes('304 /api/collector-status')`)
	if got := p.text("#collector-listen"); !strings.HasPrefix(got, "NetFlow on 127.0.0.1:") {
		t.Errorf("after a 304 the view says it listens on %q", got)
	}
	p.goTo("#/")
	p.do(chromedp.WaitVisible(chromedp.CSS("#list-view")))
	p.goTo("#/collector")
	p.do(chromedp.WaitVisible(chromedp.CSS("#collector-status")))
	p.goTo("#/")
	p.do(chromedp.WaitVisible(chromedp.CSS("#list-view")))
	p.poll(`answers.includes('304 /api/list-dashboards')`)
	// The first answer came at sign-in, before the recording: each shown again was a 304.
	if got := p.eval(`answers.filter(a => a.endsWith('/api/list-dashboards')).join(', ')`); strings.Contains(got, "200 ") {
		t.Errorf("list-dashboards answered %s, want 304 each time", got)
	}
	if msgs := problems(); len(msgs) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
	}
}
