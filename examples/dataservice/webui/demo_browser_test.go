package webui_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestBrowserDemo opens the demo's dashboards, the overview and Application performance, at
// 1440 and 390 px wide: every widget draws an answer, none shows an error or no data, and what
// a newcomer sees first is right (checkFirstLook); the HTTP and DNS views and their drill-down
// (checkLayers); the period picked shows in the picker; the zones and alert rules fit 390 px.
// The screenshots go to shotDir.
//
// Not parallel, as every test of the demo's traffic: its backfill (a day of records) under
// -race takes most of a 2-core machine, and two at once missed waitDemo's 3 minutes at load
// average 35.
func TestBrowserDemo(t *testing.T) {
	chrome := testenv.Chromium(t)
	srv, _, _ := startServiceWith(t, app.Config{Inlet: inlet.Configuration{Demo: true}})
	waitDemo(t, srv)
	ds, err := client.Call(context.Background(), newSession(t, srv), api.ListDashboards, decl.None{})
	if err != nil || len(ds) != 2 {
		t.Fatalf("dashboards %+v, %v", ds, err)
	}
	browser := testenv.Browser(t, chrome)
	p, problems := openTab(t, browser)
	shots := shotDir(t)
	p.signIn(srv.URL + "/")
	for _, width := range []int64{1440, 390} {
		p.do(chromedp.EmulateViewport(width, 1000))
		for _, d := range ds {
			p.goTo("#/d/" + d.ID)
			n := len(must(client.Call(context.Background(), newSession(t, srv), api.GetDashboard, api.IDArgs{ID: d.ID})).Widgets)
			p.poll(fmt.Sprintf(`(() => { const f = [...document.querySelectorAll('#dashboard-view .widget-foot .updated')];
				return f.length === %d && f.every(e => e.textContent.startsWith('Updated')) })()`, n))
			if bad := p.eval(`[...document.querySelectorAll('#dashboard-view .widget')].filter(w => w.querySelector('.widget-error, .no-data')).map(w => w.querySelector('h3')?.textContent + ': ' + w.querySelector('.widget-error, .no-data').textContent).join('; ')`); bad != "" {
				t.Errorf("%s at %d px: %s", d.Title, width, bad)
			}
			p.checkFirstLook(d.Title, width)
			p.screenshot(filepath.Join(shots, fmt.Sprintf("demo-%s-%d.png", strings.ReplaceAll(strings.ToLower(d.Title), " ", "-"), width)))
		}
	}
	// A dashboard's period picked shows in the picker, and back to each query's own.
	p.do(chromedp.EmulateViewport(1440, 1000))
	for _, d := range ds {
		if d.Title == "Application performance" {
			p.checkLayers(d.ID)
		}
	}
	p.goTo("#/d/" + ds[0].ID)
	p.poll(`document.getElementById('dashboard-period-select').selectedOptions[0].textContent === 'Last hour'`)
	p.do(chromedp.SetValue(chromedp.CSS("#dashboard-period-select"), "6h"))
	p.poll(`location.hash.endsWith('?range=6h') && document.getElementById('dashboard-period-select').selectedOptions[0].textContent === 'Last 6 hours'`)
	// The demo's zones, applications and alert rules fit a phone's width.
	p.do(chromedp.EmulateViewport(390, 844))
	for _, view := range []struct{ hash, rows string }{{"#/zones", "#zones-body tr"}, {"#/alerts", "#alert-rules tr"}} {
		p.goTo(view.hash)
		p.poll(fmt.Sprintf(`document.querySelectorAll(%q).length >= 3`, view.rows))
		p.checkFits(view.hash, 390)
		p.screenshot(filepath.Join(shots, fmt.Sprintf("demo-%s-390.png", view.hash[2:])))
	}
	if msgs := problems(); len(msgs) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// checkFirstLook checks a dashboard's head and widgets as a newcomer sees them: "Dashboards" once
// in the top bar (the section, not again as a crumb), the picker naming the widgets' own period
// ("Last hour", not a placeholder), every widget's title whole at 1440 px, bar labels within
// their chart, and nothing wider than the page.
func (p *page) checkFirstLook(title string, width int64) {
	p.t.Helper()
	if width == 1440 {
		if n := p.eval(`String(document.getElementById('topbar').innerText.split(/\s+/).filter(w => w === 'Dashboards').length)`); n != "1" {
			p.t.Errorf("%s: the top bar says Dashboards %s times: %q", title, n, p.eval(`document.getElementById('topbar').innerText`))
		}
		if got := p.eval(`document.getElementById('dashboard-period-select').selectedOptions[0].textContent`); got != "Last hour" {
			p.t.Errorf("%s: the period picker reads %q, want Last hour (the widgets' own period)", title, got)
		}
		if cut := p.eval(`[...document.querySelectorAll('#dashboard-view .widget h3')].filter(h => h.scrollWidth > h.clientWidth).map(h => h.textContent).join(', ')`); cut != "" {
			p.t.Errorf("%s: these widget titles are cut at 1440 px: %s", title, cut)
		}
	}
	if out := p.eval(`[...document.querySelectorAll('#dashboard-view .bar-label')].filter(t => t.getBoundingClientRect().left < t.closest('svg').getBoundingClientRect().left - 1).map(t => t.textContent).join(', ')`); out != "" {
		p.t.Errorf("%s at %d px: these bar labels run past the chart's left edge: %s", title, width, out)
	}
	p.checkFits(title, width)
}

// checkFits checks that the page is no wider than the window: no horizontal scrolling.
func (p *page) checkFits(what string, width int64) {
	p.t.Helper()
	if w := p.eval(`String(document.documentElement.scrollWidth)`); w != fmt.Sprint(width) {
		p.t.Errorf("%s at %d px: the page is %s px wide", what, width, w)
	}
}
