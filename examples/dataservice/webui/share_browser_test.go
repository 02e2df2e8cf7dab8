package webui_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// weekClients are the clients of the records testShare stores now and a week ago (the
// demo's customers are in 203.0.113.128/26).
const weekClients = "203.0.113.0/26"

// testShare checks what a time series offers to compare and share, over records stored now
// and, twice as large, a week ago: the legend's swatch hides and shows a series; Compare
// overlays the same period last week at twice the height; a widget's PNG is the picture shown;
// Explore compares and exports too.
func testShare(t *testing.T, browser context.Context, srv *httptest.Server) {
	ingestWeek(t, srv)
	p, problems := openTab(t, browser)
	p.signIn(srv.URL + "/")
	p.createDashboard("Share")
	dashboard := p.eval(`location.hash`)
	series := `.widget[data-kind=timeseries]`
	p.addWidget("Two clients over time", "timeseries", "traffic BY time(60), client.ip WHERE client.ip IN "+weekClients)
	p.poll(fmt.Sprintf(`document.querySelectorAll('%s path.series').length === 2`, series))

	t.Run("legend", func(t *testing.T) {
		p := &page{t: t, ctx: p.ctx}
		one := fmt.Sprintf(`%s path.series[data-name="203.0.113.1"]`, series)
		two := fmt.Sprintf(`%s path.series[data-name="203.0.113.2"]`, series)
		toggle := fmt.Sprintf(`%s .legend-toggle[aria-label="Show 203.0.113.1"]`, series)
		// Clicked from the page's script: a live answer may redraw the legend between a
		// pointer click's look-up of the swatch and its press.
		click := fmt.Sprintf(`document.querySelector('%s').click(), 'ok'`, toggle)
		p.eval(click)
		p.poll(fmt.Sprintf(`!document.querySelector('%s') && !!document.querySelector('%s')`, one, two))
		if got := p.eval(fmt.Sprintf(`document.querySelector('%s').getAttribute('aria-pressed') + ' ' + document.querySelector('%s').closest('.legend-item').classList.contains('off')`, toggle, toggle)); got != "false true" {
			t.Errorf("a hidden series' swatch: aria-pressed and off are %s, want false true", got)
		}
		// Hidden, it stays hidden as the widget is answered again.
		stamp := p.eval(fmt.Sprintf(`document.querySelector('%s .updated').dataset.at`, series))
		p.poll(fmt.Sprintf(`document.querySelector('%s .updated').dataset.at !== '%s'`, series, stamp))
		if got := p.eval(fmt.Sprintf(`String(!!document.querySelector('%s'))`, one)); got != "false" {
			t.Errorf("the hidden series came back when the widget was answered again")
		}
		p.screenshot(filepath.Join(shotDir(t), "legend-hidden.png"))
		p.eval(click)
		p.poll(fmt.Sprintf(`!!document.querySelector('%s') && !!document.querySelector('%s')`, one, two))
	})

	t.Run("held", func(t *testing.T) {
		// A time series is drawn anew with each answer (its axis moves), but not while a button
		// is down on it (a click or a drag to zoom in progress): then on release.
		p := &page{t: t, ctx: p.ctx}
		body := series + ` .widget-body`
		press := func(kind string) string {
			return fmt.Sprintf(`document.querySelector('%s').dispatchEvent(new PointerEvent('%s', {bubbles: true})), 'ok'`, body, kind)
		}
		p.eval(fmt.Sprintf(`document.querySelector('%s svg.chart').dataset.mark = 'kept', 'ok'`, series))
		p.eval(press("pointerdown"))
		stamp := p.eval(fmt.Sprintf(`document.querySelector('%s .updated').dataset.at`, series))
		p.poll(fmt.Sprintf(`document.querySelector('%s .updated').dataset.at !== '%s'`, series, stamp))
		if got := p.eval(fmt.Sprintf(`document.querySelector('%s svg.chart')?.dataset.mark ?? 'none'`, series)); got != "kept" {
			t.Errorf("a time series held down was drawn anew by an answer (its chart's mark: %q)", got)
		}
		p.eval(press("pointerup"))
		p.poll(fmt.Sprintf(`document.querySelector('%s svg.chart') && !document.querySelector('%s svg.chart').dataset.mark`, series, series))
	})

	t.Run("compare last week", func(t *testing.T) {
		p := &page{t: t, ctx: p.ctx}
		p.do(chromedp.Click(chromedp.CSS(series+" .compare-widget")), chromedp.Click(chromedp.CSS(series+" .compare-widget")))
		p.poll(fmt.Sprintf(`document.querySelector('%s .compare-widget').dataset.compare === 'week' && !!document.querySelector('%s path.previous')`, series, series))
		// Last week's total is twice this week's: its highest point twice as high.
		p.checkTwice(series + " svg.chart")
		p.screenshot(filepath.Join(shotDir(t), "compare-week.png"))
	})

	t.Run("png", func(t *testing.T) {
		p := &page{t: t, ctx: p.ctx}
		p.catchDownloads()
		p.do(chromedp.Click(chromedp.CSS(series + " .png-widget")))
		img := p.downloadedPNG(filepath.Join(shotDir(t), "widget-export.png"))
		w, h := p.eval(fmt.Sprintf(`String(Math.ceil(document.querySelector('%s').getBoundingClientRect().width))`, series)),
			p.eval(fmt.Sprintf(`String(Math.ceil(document.querySelector('%s').getBoundingClientRect().height))`, series))
		if got, want := fmt.Sprint(img.Bounds().Dx(), "x", img.Bounds().Dy()), fmt.Sprint(atoi(t, w)*2, "x", atoi(t, h)*2); got != want {
			t.Errorf("the PNG is %s, want twice the widget's %sx%s", got, w, h)
		}
		// The picture holds both series' colours and the title's text, not a blank card.
		for name, c := range map[string][3]uint8{"first series": {0x25, 0x63, 0xeb}, "second series": {0xf5, 0x9e, 0x0b}} {
			if n := countColour(img, c); n < 200 {
				t.Errorf("the PNG has %d pixels of the %s's colour", n, name)
			}
		}
		if n := countDark(img); n < 500 {
			t.Errorf("the PNG has %d pixels of dark text", n)
		}
	})

	t.Run("explore", func(t *testing.T) {
		p := &page{t: t, ctx: p.ctx}
		p.do(chromedp.Click(chromedp.CSS(series+" .explore-widget")), chromedp.WaitVisible(chromedp.CSS("#explore-result")))
		chart := "#explore-chart"
		p.poll(fmt.Sprintf(`document.querySelectorAll('%s path.series').length === 2`, chart))
		p.do(chromedp.Click(chromedp.CSS("#explore-tools .compare-widget")))
		p.poll(fmt.Sprintf(`document.querySelector('%s path.previous title')?.textContent === 'Previous period, moved forward'`, chart))
		p.do(chromedp.Click(chromedp.CSS("#explore-tools .compare-widget")))
		p.poll(fmt.Sprintf(`document.querySelector('%s path.previous title')?.textContent === 'Same period last week, moved forward'`, chart))
		p.checkTwice(chart + " svg.chart")
		p.screenshot(filepath.Join(shotDir(t), "explore-compare.png"))
		// Compare is for time series only.
		p.do(chromedp.Click(chromedp.CSS(`#explore-kinds [data-kind=bar]`)))
		p.poll(`document.querySelector('#explore-tools .compare-widget').hidden`)
		p.catchDownloads()
		p.do(chromedp.Click(chromedp.CSS("#explore-tools .png-widget")))
		img := p.downloadedPNG(filepath.Join(shotDir(t), "explore-export.png"))
		if n := countColour(img, [3]uint8{0x25, 0x63, 0xeb}); n < 200 {
			t.Errorf("Explore's PNG has %d pixels of the first bar's colour", n)
		}
	})

	t.Run("sankey", func(t *testing.T) {
		p := &page{t: t, ctx: p.ctx}
		query := "traffic BY client.ip, server.ip, application WHERE client.ip IN " + weekClients
		p.goTo("#/explore?kind=sankey&q=" + url.QueryEscape(query))
		chart := "#explore-chart svg.sankey"
		p.poll(fmt.Sprintf(`document.querySelectorAll('%s .sankey-node').length >= 4`, chart))
		// A column per key; the clients' nodes as tall as their traffic (one twice the other);
		// one server takes it all.
		if got := p.eval(fmt.Sprintf(`[...document.querySelectorAll('%s .sankey-head')].map(t => t.textContent).join(',')`, chart)); got != "client.ip,server.ip,application" {
			t.Errorf("the Sankey view's columns are %s", got)
		}
		height := func(name string) float64 {
			h, err := strconv.ParseFloat(p.eval(fmt.Sprintf(`document.querySelector('%s .sankey-node[data-name="%s"] rect')?.getAttribute('height') ?? 'none'`, chart, name)), 64)
			if err != nil {
				t.Fatalf("no node %s: %v", name, err)
			}
			return h
		}
		one, two, server := height("203.0.113.1"), height("203.0.113.2"), height("198.51.100.9")
		if r := two / one; r < 1.95 || r > 2.05 {
			t.Errorf("203.0.113.2's node is %.1f times 203.0.113.1's, want 2 (its traffic)", r)
		}
		if d := server - (one + two); d < -0.5 || d > 0.5 {
			t.Errorf("the server's node is %.1f high, its clients' %.1f + %.1f", server, one, two)
		}
		if got := p.eval(fmt.Sprintf(`String(document.querySelectorAll('%s .sankey-band').length)`, chart)); got != "3" {
			t.Errorf("%s bands, want 3 (two clients to the server, the server to its application)", got)
		}
		p.screenshot(filepath.Join(shotDir(t), "sankey.png"))
		p.colorScheme("dark")
		p.screenshot(filepath.Join(shotDir(t), "sankey-dark.png"))
		p.colorScheme("light")
		// At 360 px (drawn afresh, as a phone would) it fits, its labels at their size.
		p.do(chromedp.EmulateViewport(360, 900), chromedp.Click(chromedp.CSS("#explore-run")))
		p.poll(fmt.Sprintf(`document.documentElement.scrollWidth <= 360 && Number(document.querySelector('%s').getAttribute('viewBox').split(' ')[2]) <= 360`, chart))
		p.screenshot(filepath.Join(shotDir(t), "sankey-360.png"))
		p.do(chromedp.EmulateViewport(1440, 1000))

		// Saved as a widget, the dashboard draws it as a Sankey view; the service keeps a table
		// with the option view "sankey", its own kinds being fixed.
		p.do(
			chromedp.Click(chromedp.CSS("#explore-save")),
			chromedp.WaitVisible(chromedp.CSS("#save-title")),
			chromedp.SetValue(chromedp.CSS("#save-dashboard"), strings.TrimPrefix(dashboard, "#/d/")),
			chromedp.SetValue(chromedp.CSS("#save-title"), "Who talks to whom"),
			chromedp.Click(chromedp.CSS("#save-ok")),
			chromedp.WaitVisible(chromedp.CSS("#explore-saved-link")),
			chromedp.Click(chromedp.CSS("#explore-saved-link")),
			chromedp.WaitVisible(chromedp.CSS("#dashboard-view")),
		)
		p.poll(`document.querySelectorAll('.widget[data-kind=sankey] svg.sankey .sankey-band').length === 3`)
		// The widget's followed query answers every 5 s, the same answer here: the drawing stays
		// (a node marked now is still there after the next answer), so that hover and clicks
		// in progress are not lost to a redraw. (Before the screenshot, which resizes the page.)
		widget := `.widget[data-kind=sankey]`
		// The first answer comes in slices (the last with progress 1): mark after it, or the
		// next slice, a larger answer, is rightly drawn anew.
		p.poll(`document.querySelector('` + widget + ` .updated')?.textContent.startsWith('Updated')`)
		at := p.eval(`document.querySelector('` + widget + ` .updated').dataset.at + ''`)
		p.eval(`document.querySelector('` + widget + ` .sankey-node[data-name="203.0.113.2"]').dataset.mark = 'kept'; 'ok'`)
		p.poll(`document.querySelector('` + widget + ` .updated')?.dataset.at !== '` + at + `'`)
		if got := p.eval(`document.querySelector('` + widget + ` .sankey-node[data-name="203.0.113.2"]')?.dataset.mark ?? 'none'`); got != "kept" {
			t.Errorf("an unchanged answer drew the Sankey widget anew (the node marked before it: %q)", got)
		}
		var dash struct {
			Widgets []struct {
				Kind    string         `json:"kind"`
				Title   string         `json:"title"`
				Options map[string]any `json:"options"`
			} `json:"widgets"`
		}
		if err := newSession(t, srv).Call(context.Background(), "get-dashboard", map[string]any{"id": strings.TrimPrefix(dashboard, "#/d/")}, &dash); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, w := range dash.Widgets {
			if w.Title == "Who talks to whom" {
				found = true
				if w.Kind != "table" || w.Options["view"] != "sankey" {
					t.Errorf("the Sankey widget is stored as kind %q with options %v", w.Kind, w.Options)
				}
			}
		}
		if !found {
			t.Errorf("no widget saved: %+v", dash.Widgets)
		}
		p.screenshot(filepath.Join(shotDir(t), "sankey-widget.png"))
		// A click on a client's node drills down to it: dispatched in the page, where a live
		// answer that redraws the chart cannot replace the node between finding and clicking it.
		p.poll(`document.querySelector('` + widget + ` .sankey-node[data-name="203.0.113.2"]')`)
		p.eval(`(document.querySelector('` + widget + ` .sankey-node[data-name="203.0.113.2"]').dispatchEvent(new MouseEvent('click', {bubbles: true})), '')`)
		p.poll(`!document.getElementById('explore-view').hidden && document.getElementById('explore-input').value.includes('client.ip = 203.0.113.2')`)
	})

	p.do(chromedp.Evaluate[chromedp.Void](`location.hash = ` + strconv.Quote(dashboard)))
	p.deleteDashboard("Share")
	p.signOut()
	p.do(chromedp.Sleep(300 * time.Millisecond)) // let the console catch up
	if msgs := problems(); len(msgs) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
	}
}

// ingestWeek stores records of two clients of weekClients over the last ten minutes, and the
// same records with twice the bytes a week before.
func ingestWeek(t *testing.T, srv *httptest.Server) {
	var token string
	call(t, srv.Client(), srv.URL, "login", map[string]any{"user": "admin", "password": adminPassword}, &token)
	now := time.Now().Unix()
	var records []map[string]any
	for _, ago := range []int64{0, 7 * 86400} {
		scale := 1 + ago/(7*86400)
		for k := int64(2); k <= 10; k++ {
			for c := 1; c <= 2; c++ {
				records = append(records, map[string]any{
					"time":     now - ago - 60*k - 5,
					"protocol": "udp",
					"client":   map[string]any{"ip": fmt.Sprintf("203.0.113.%d", c), "port": 40000 + k, "bytes": scale * 3000 * int64(c), "packets": 2},
					"server":   map[string]any{"ip": "198.51.100.9", "port": 53, "bytes": 0, "packets": 0},
				})
			}
		}
	}
	call(t, srv.Client(), srv.URL, "ingest", map[string]any{"records": records, "_session": token}, nil)
}

// checkTwice checks that the overlay of the chart at sel rises twice as high as the stack of
// its series (last week's records are twice this week's), once the overlay is drawn.
func (p *page) checkTwice(sel string) {
	p.t.Helper()
	p.poll(fmt.Sprintf(`(() => {
		const c = document.querySelector('%s');
		const prev = c?.querySelector('path.previous');
		if (!prev) return false;
		const axis = Number(c.querySelector('line.axis').getAttribute('y1'));
		const top = (paths) => Math.min(...paths.flatMap(e => [...e.getAttribute('d').matchAll(/[ML][\d.]+,([\d.]+)/g)].map(m => Number(m[1]))));
		const ratio = (axis - top([prev])) / (axis - top([...c.querySelectorAll('path.series')]));
		return ratio > 1.9 && ratio < 2.1;
	})()`, sel))
}

// catchDownloads keeps the next Blob the page hands to URL.createObjectURL (a download).
func (p *page) catchDownloads() {
	p.t.Helper()
	p.eval(`(window.downloaded = null, URL.createObjectURL = ((make) => (b) => { window.downloaded = b; return make(b); })(window.realCreateObjectURL ??= URL.createObjectURL), '')`)
}

// downloadedPNG decodes the PNG the page downloaded and writes it to path.
func (p *page) downloadedPNG(path string) image.Image {
	p.t.Helper()
	p.poll(`window.downloaded !== null`)
	if got := p.eval(`window.downloaded.type`); got != "image/png" {
		p.t.Fatalf("the download is %q, want image/png", got)
	}
	b64 := p.eval(`window.downloaded.arrayBuffer().then(b => { let s = ''; for (const c of new Uint8Array(b)) s += String.fromCharCode(c); return btoa(s); })`)
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		p.t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		p.t.Fatalf("the download is no PNG: %v", err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("PNG: %s", path)
	return img
}

// countColour counts the pixels of img within a few levels of colour c.
func countColour(img image.Image, c [3]uint8) int {
	n := 0
	near := func(a uint32, b uint8) bool { d := int(a>>8) - int(b); return d > -12 && d < 12 }
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if near(r, c[0]) && near(g, c[1]) && near(b, c[2]) {
				n++
			}
		}
	}
	return n
}

// countDark counts the pixels of img dark enough to be text on a light card.
func countDark(img image.Image) int {
	n := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 < 90 && g>>8 < 90 && b>>8 < 110 {
				n++
			}
		}
	}
	return n
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
