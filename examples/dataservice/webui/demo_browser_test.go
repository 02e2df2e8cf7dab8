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
// 1440 and 390 px wide: every widget draws an answer, none shows an error or no data. The
// screenshots go to shotDir.
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
			p.screenshot(filepath.Join(shots, fmt.Sprintf("demo-%s-%d.png", strings.ReplaceAll(strings.ToLower(d.Title), " ", "-"), width)))
		}
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
