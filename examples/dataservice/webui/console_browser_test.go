package webui_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// testConsole drives what an operator does every day: a period for a whole dashboard (presets,
// custom, zoom by dragging), Explore (highlighting, completion, a QUERY-SYNTAX mark, each chart
// kind, saving a widget), drill-down from a bar, a slice, a row and a legend entry, and the API
// reference (calling echo); then the light, dark and 360 px wide pages, their contrast and
// that nothing overflows. Screenshots go to shotDir.
func testConsole(t *testing.T, browser context.Context, srv *httptest.Server) {
	p, problems := openTab(t, browser)
	tab := p.ctx
	shots := shotDir(t)
	p.signIn(srv.URL + "/")
	p.createDashboard("Console")
	dashboard := p.eval(`location.hash`)
	widgets := []struct{ title, kind, query string }{
		{"Traffic", "number", "traffic"},
		{"Known traffic over time", "timeseries", "traffic BY time(60) WHERE client.ip IN " + knownClients},
		{"Applications", "bar", "traffic BY application TOP 8"},
		{"Protocols", "pie", "traffic BY protocol"},
		{"Servers", "table", "traffic, packets BY server.ip TOP 10"},
		{"Protocols over time", "timeseries", "traffic BY time(300), protocol SINCE @now-600"},
	}
	for _, w := range widgets {
		p.addWidget(w.title, w.kind, w.query)
	}
	// Each widget's own period: the default hour, and the last one's ten minutes.
	p.waitPeriods(map[int]int{0: 3600, 5: 600})

	t.Run("period", func(t *testing.T) {
		p := &page{t: t, ctx: tab}
		for _, preset := range []struct {
			name    string
			seconds int
		}{{"6h", 21600}, {"15m", 900}, {"30d", 2592000}} {
			p.do(chromedp.SetValue(chromedp.CSS("#dashboard-period-select"), preset.name))
			p.poll(fmt.Sprintf(`location.hash.endsWith('?range=%s')`, preset.name))
			p.waitPeriods(everyWidget(len(widgets), preset.seconds))
			p.checkAxes(".widget:nth-child(2)", preset.seconds)
		}
		// A custom period that ended an hour ago: answered once, not followed.
		until := time.Now().Add(-time.Hour).Truncate(time.Minute)
		since := until.Add(-2 * time.Hour)
		p.do(
			chromedp.SetValue(chromedp.CSS("#dashboard-period-select"), "custom"),
			chromedp.WaitVisible(chromedp.CSS("#dashboard-period-since")),
			chromedp.SetValue(chromedp.CSS("#dashboard-period-since"), since.Format("2006-01-02T15:04")),
			chromedp.SetValue(chromedp.CSS("#dashboard-period-until"), until.Format("2006-01-02T15:04")),
			chromedp.Click(chromedp.CSS("#dashboard-period-apply")),
		)
		p.poll(fmt.Sprintf(`location.hash.endsWith('?since=%d&until=%d')`, since.Unix(), until.Unix()))
		p.waitPeriods(everyWidget(len(widgets), 7200))
		p.poll(`[...document.querySelectorAll('.widget-foot .updated')].every(e => e.textContent === 'Fixed period')`)
		// The head holds the custom period on one line at 1440 px.
		if tops := p.eval(`String(new Set([...document.querySelectorAll('#dashboard-view .page-head .actions > *')].map(e => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2))).size)`); tops != "1" {
			t.Errorf("with a custom period the dashboard's head wraps on %s lines at 1440 px", tops)
		}
		if tall := p.eval(`[...document.querySelectorAll('#dashboard-view .page-head .actions .btn')].filter(b => b.getBoundingClientRect().height > 44).map(b => b.textContent).join(', ')`); tall != "" {
			t.Errorf("with a custom period at 1440 px these buttons wrap their text: %s", tall)
		}
		p.screenshot(filepath.Join(shots, "dashboard-custom-1440.png"))
		// Reloading the address shows the same period.
		p.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#dashboard-view")))
		p.waitPeriods(everyWidget(len(widgets), 7200))
		if got := p.eval(`document.getElementById('dashboard-period-select').value`); got != "custom" {
			t.Errorf("after a reload the period picker shows %q", got)
		}
	})

	t.Run("zoom", func(t *testing.T) {
		p := &page{t: t, ctx: tab}
		p.do(chromedp.SetValue(chromedp.CSS("#dashboard-period-select"), "1h"))
		p.waitPeriods(everyWidget(len(widgets), 3600))
		sel := `.widget:nth-child(2) svg.chart`
		p.poll(fmt.Sprintf(`document.querySelector(%q)?.querySelector('path.series')`, sel))
		box := p.eval(fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.left, r.top, r.width, r.height].join(' '); })()`, sel))
		var left, top, width, height float64
		fmt.Sscan(box, &left, &top, &width, &height)
		y := top + height/2
		x0, x1 := left+width*0.4, left+width*0.8
		p.do(
			chromedp.MouseEvent(chromedp.MousePressed, x0, y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
			chromedp.MouseEvent(chromedp.MouseMoved, (x0+x1)/2, y, chromedp.ButtonLeft),
			chromedp.MouseEvent(chromedp.MouseMoved, x1, y, chromedp.ButtonLeft),
			chromedp.MouseEvent(chromedp.MouseReleased, x1, y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		)
		p.poll(`/[?]since=\d+&until=\d+$/.test(location.hash)`)
		q, _ := url.ParseQuery(strings.SplitN(p.eval(`location.hash`), "?", 2)[1])
		s, _ := strconv.Atoi(q.Get("since"))
		u, _ := strconv.Atoi(q.Get("until"))
		// The axis spans the hour asked; 40 % of the chart (with its value axis) is about 28
		// minutes of it.
		if span := u - s; span < 22*60 || span > 32*60 {
			t.Errorf("dragging across 40 %% of the line zoomed to %d s (%s)", span, p.eval(`location.hash`))
		}
		p.waitPeriods(everyWidget(len(widgets), u-s))
		p.goTo(dashboard)
	})

	t.Run("drill-down", func(t *testing.T) {
		p := &page{t: t, ctx: tab}
		back := dashboard + "?range=6h"
		targets := []struct{ name, sel, label, filter string }{
			{"bar", `.widget[data-kind=bar] .bar-row.pick`, `.widget[data-kind=bar] .bar-row.pick title`, `application = "%s"`},
			{"slice", `.widget[data-kind=pie] path.slice.pick`, `.widget[data-kind=pie] .legend .pick`, `protocol = %s`},
			{"row", `.widget[data-kind=table] tr.pick`, `.widget[data-kind=table] tr.pick td`, `server.ip = %s`},
			{"legend", `.widget:nth-child(6) .legend .pick`, `.widget:nth-child(6) .legend .pick`, `protocol = %s`},
		}
		for _, tt := range targets {
			p.goTo(back)
			p.do(chromedp.WaitVisible(chromedp.CSS("#dashboard-view")))
			p.poll(fmt.Sprintf(`document.querySelector(%q)`, tt.sel))
			label := strings.TrimSpace(strings.Split(p.eval(fmt.Sprintf(`document.querySelector(%q).textContent`, tt.label)), " · ")[0])
			if tt.name == "bar" {
				// A click on the bar read (a live answer may reorder the bars between the
				// read and a pointer's press).
				p.eval(fmt.Sprintf(`([...document.querySelectorAll(%q)].find(g => g.querySelector('title').textContent.split(' · ')[0].trim() === %q).dispatchEvent(new MouseEvent('click', {bubbles: true})), '')`, tt.sel, label))
			} else { // by keyboard: focus it and press Enter
				p.eval(fmt.Sprintf(`(document.querySelector(%q).focus(), document.activeElement.dataset.old = '1', '')`, tt.sel))
				// A redrawing (here a resize; live widgets redraw at every answer) hands the
				// focus to the same entry of the new drawing.
				p.eval(`(window.dispatchEvent(new Event('resize')), '')`)
				p.poll(`document.activeElement.matches('.pick') && !document.activeElement.dataset.old`)
				// The entry pressed is the one focused now: a live answer may have reordered
				// the entries since the label above was read.
				label = strings.TrimSpace(strings.Split(strings.TrimPrefix(p.eval(`document.activeElement.title || document.activeElement.getAttribute('aria-label')`), "Explore "), " · ")[0])
				p.do(chromedp.KeyEvent("\r"))
			}
			p.poll(`location.hash.startsWith('#/explore?') && !document.getElementById('explore-view').hidden`)
			want := fmt.Sprintf(tt.filter, label)
			if got := p.eval(`document.getElementById('explore-input').value`); !strings.Contains(got, want) {
				t.Errorf("%s: Explore's query is %q, want a filter %s", tt.name, got, want)
			}
			if h := p.eval(`location.hash`); !strings.Contains(h, "range=6h") {
				t.Errorf("%s: Explore's address %s lost the period", tt.name, h)
			}
			p.poll(`!document.getElementById('explore-result').hidden`)
			if tt.name == "bar" { // the path leads back to the widget's query
				if got := p.eval(`document.getElementById('explore-path').textContent`); got != "Applications›application = "+label {
					t.Errorf("from the bar, the drill-down path says %q", got)
				}
				p.eval(`(document.querySelector('#explore-path button').click(), '')`)
				p.poll(`document.getElementById('explore-input').value === 'traffic BY application TOP 8' && document.getElementById('explore-path').hidden`)
			}
		}
	})

	t.Run("explore", func(t *testing.T) {
		p := &page{t: t, ctx: tab}
		p.do(chromedp.Click(chromedp.CSS("#nav-explore")), chromedp.WaitVisible(chromedp.CSS("#explore-input")))
		p.poll(`location.hash === '#/explore'`)
		// Completion offers the context keys of API 1.3 (from list-fields).
		p.do(chromedp.SendKeys(chromedp.CSS("#explore-input"), "traffic BY server.coun"))
		p.poll(`!document.getElementById('explore-completions').hidden`)
		if got := p.text("#explore-completions li"); !strings.HasPrefix(got, "server.country") {
			t.Errorf("completions after BY server.coun start with %q", got)
		}
		p.eval(`(() => { const i = document.getElementById('explore-input'); i.value = ''; i.dispatchEvent(new Event('input')); return ''; })()`)
		p.poll(`document.getElementById('explore-completions').hidden`)
		// A percentile function (list-fields' kind "function") completes to its name and "(".
		p.do(chromedp.SendKeys(chromedp.CSS("#explore-input"), "p9"))
		p.poll(`!document.getElementById('explore-completions').hidden`)
		if got := p.text("#explore-completions li"); !strings.HasPrefix(got, "p95(") {
			t.Errorf("completions of p9 start with %q", got)
		}
		p.do(chromedp.SendKeys(chromedp.CSS("#explore-input"), "5(srt) BY application"))
		if got := p.text("#explore-highlight .tok-function"); got != "p95" {
			t.Errorf("the function highlighted is %q, want p95", got)
		}
		p.eval(`(() => { const i = document.getElementById('explore-input'); i.value = ''; i.dispatchEvent(new Event('input')); return ''; })()`)
		// Completion: "appl" after BY offers application; Tab takes it.
		p.do(chromedp.SendKeys(chromedp.CSS("#explore-input"), "traffic BY appl"))
		p.poll(`!document.getElementById('explore-completions').hidden`)
		p.screenshot(filepath.Join(shots, "explore-completion.png"))
		if got := p.text("#explore-completions li"); !strings.HasPrefix(got, "application") {
			t.Errorf("completions after BY appl start with %q", got)
		}
		p.do(chromedp.KeyEvent("\t"), chromedp.SendKeys(chromedp.CSS("#explore-input"), "TOP 3 SINCE @now-7200"))
		if got := p.eval(`document.getElementById('explore-input').value`); got != "traffic BY application TOP 3 SINCE @now-7200" {
			t.Errorf("after completion the query is %q", got)
		}
		for cls, want := range map[string]string{"keyword": "BY", "metric": "traffic", "key": "application"} {
			if got := p.text("#explore-highlight .tok-" + cls); got != want {
				t.Errorf("the first %s highlighted is %q, want %q", cls, got, want)
			}
		}
		p.do(chromedp.Click(chromedp.CSS("#explore-run")))
		p.poll(`location.hash.startsWith('#/explore?q=') && document.querySelectorAll('#explore-chart tbody tr').length === 3`)
		for _, kind := range []string{"bar", "pie", "number", "timeseries", "table"} {
			p.do(chromedp.Click(chromedp.CSS(`#explore-kinds [data-kind=` + kind + `]`)))
			p.poll(fmt.Sprintf(`document.getElementById('explore-chart').dataset.kind === %q && document.querySelector('#explore-chart').children.length > 0`, kind))
		}
		// Drilling inside Explore narrows the query in place.
		first := p.eval(`document.querySelector('#explore-chart tr.pick td').textContent`)
		p.do(chromedp.Click(chromedp.CSS("#explore-chart tr.pick")))
		narrowed := fmt.Sprintf(`traffic BY server.ip TOP 3 SINCE @now-7200 WHERE application = %q`, first)
		p.poll(fmt.Sprintf(`document.getElementById('explore-input').value === %q && document.querySelector('#explore-chart th')?.textContent === 'server.ip'`, narrowed))
		// Again, by the server: the next key is the server's port; the path steps back.
		server := p.eval(`document.querySelector('#explore-chart tr.pick td').textContent`)
		p.do(chromedp.Click(chromedp.CSS("#explore-chart tr.pick")))
		twice := fmt.Sprintf(`traffic BY server.port TOP 3 SINCE @now-7200 WHERE (application = %q) AND server.ip = %s`, first, server)
		p.poll(fmt.Sprintf(`document.getElementById('explore-input').value === %q && document.querySelector('#explore-chart th')?.textContent === 'server.port'`, twice))
		if got := p.eval(`document.getElementById('explore-path').textContent`); got != fmt.Sprintf("Start›application = %s›server.ip = %s", first, server) {
			t.Errorf("after drilling twice the path says %q", got)
		}
		p.eval(`(document.querySelector('#explore-path button:nth-of-type(2)').click(), '')`) // at once: the path is redrawn with each answer
		p.poll(fmt.Sprintf(`document.getElementById('explore-input').value === %q && document.querySelectorAll('#explore-path [aria-current]').length === 1`, narrowed))
		p.eval(`(document.querySelector('#explore-path button').click(), '')`)
		p.poll(`document.getElementById('explore-input').value === 'traffic BY application TOP 3 SINCE @now-7200' && document.getElementById('explore-path').hidden`)
		// The first row again, read and clicked at once: live demo traffic may have reordered
		// the rows, or put the application drilled first out of the top 3 (seen at night).
		p.poll(`document.querySelector('#explore-chart th')?.textContent === 'application' && document.querySelectorAll('#explore-chart tr.pick').length > 0`)
		again := p.eval(`(() => { const r = document.querySelector('#explore-chart tr.pick'); r.click(); return r.querySelector('td').textContent })()`)
		narrowed = fmt.Sprintf(`traffic BY server.ip TOP 3 SINCE @now-7200 WHERE application = %q`, again)
		p.poll(fmt.Sprintf(`document.getElementById('explore-input').value === %q`, narrowed))
		if h := p.eval(`location.hash`); !strings.Contains(h, url.QueryEscape(narrowed)) {
			t.Errorf("after drilling in Explore the address is %s", h)
		}
		// Save it as a widget of the dashboard.
		p.do(
			chromedp.Click(chromedp.CSS("#explore-kinds [data-kind=bar]")),
			chromedp.Click(chromedp.CSS("#explore-save")),
			chromedp.WaitVisible(chromedp.CSS("#save-title")),
			chromedp.SetValue(chromedp.CSS("#save-dashboard"), strings.TrimPrefix(dashboard, "#/d/")),
			chromedp.SetValue(chromedp.CSS("#save-title"), "Top three applications"),
			chromedp.Click(chromedp.CSS("#save-ok")),
			chromedp.WaitVisible(chromedp.CSS("#explore-saved-link")),
			chromedp.Click(chromedp.CSS("#explore-saved-link")),
			chromedp.WaitVisible(chromedp.CSS("#dashboard-view")),
		)
		p.poll(`[...document.querySelectorAll('.widget[data-kind=bar] h3')].some(h => h.textContent === 'Top three applications')`)

		// A mistake is marked where it is.
		bad := "traffic BY application\nWHERE nosuch = 1"
		p.goTo("#/explore?range=6h")
		p.do(chromedp.WaitVisible(chromedp.CSS("#explore-input")))
		p.do(chromedp.SendKeys(chromedp.CSS("#explore-input"), bad), chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
		p.do(chromedp.WaitVisible(chromedp.CSS("#explore-error")))
		pos := strings.Index(bad, "nosuch")
		if got := p.eval(`document.querySelector('#explore-highlight mark.error-mark')?.dataset.start + ' ' + document.querySelector('#explore-highlight mark.error-mark')?.textContent`); got != fmt.Sprintf("%d nosuch", pos) {
			t.Errorf("the error mark is at %q, want %d nosuch", got, pos)
		}
		if got := p.text("#explore-error"); !strings.Contains(got, fmt.Sprintf("QUERY-SYNTAX at position %d", pos)) ||
			!strings.Contains(got, "WHERE nosuch = 1\n      ^") {
			t.Errorf("the error says %q", got)
		}
		if h := p.eval(`location.hash`); !strings.Contains(h, "range=6h") || !strings.Contains(h, "q=") {
			t.Errorf("Explore's address %s does not hold the query and period", h)
		}
		p.screenshot(filepath.Join(shots, "explore-error.png"))
	})

	t.Run("api", func(t *testing.T) {
		p := &page{t: t, ctx: tab}
		p.do(chromedp.Click(chromedp.CSS("#nav-api")), chromedp.WaitVisible(chromedp.CSS("#api-view")))
		p.poll(`document.querySelectorAll('#api-functions a').length > 0`)
		want := p.eval(`fetch('/api/doc', {method: 'POST'}).then(r => r.json()).then(m => m.result.functions.map(f => f.name).join(' '))`)
		if got := p.eval(`[...document.querySelectorAll('#api-functions a')].map(a => a.textContent).join(' ')`); got != want {
			t.Errorf("the reference lists %s\nwant %s", got, want)
		}
		p.do(chromedp.Click(chromedp.CSS(`#api-functions a[data-fn=query]`)))
		p.poll(`document.getElementById('fn-name')?.textContent === 'query'`)
		args := p.text("#api-function table.args")
		for _, w := range []string{"expr", "required", "interval", "optional", "5", "Seconds between answers"} {
			if !strings.Contains(args, w) {
				t.Errorf("query's arguments table lacks %q:\n%s", w, args)
			}
		}
		// The service's own codes are described as declared: description, status, attributes.
		if got := p.text("#api-function dl.errors"); !strings.Contains(got, "QUERY-SYNTAX") ||
			!strings.Contains(got, "not valid in the query language. HTTP 400.") || !strings.Contains(got, "position (") ||
			!strings.Contains(got, "LIMIT-REACHED") || !strings.Contains(got, "HTTP 409") {
			t.Errorf("query's errors: %q", got)
		}
		p.do(chromedp.Click(chromedp.CSS(`#api-functions a[data-fn=echo]`)))
		p.poll(`document.getElementById('fn-name')?.textContent === 'echo'`)
		if got := p.text("#fn-curl"); !strings.Contains(got, "curl -X POST '"+srv.URL+"/api/") || !strings.Contains(got, "/echo'") {
			t.Errorf("echo's example: %q", got)
		}
		p.do(
			chromedp.SendKeys(chromedp.CSS("#arg-more"), `{"hello": "world", "n": 3}`),
			chromedp.Click(chromedp.CSS("#fn-call")),
		)
		p.poll(`document.getElementById('fn-answer').textContent.includes('"result"')`)
		if got := strings.Join(strings.Fields(p.text("#fn-answer")), " "); got != `{ "type": "result", "result": { "hello": "world", "n": 3 } }` {
			t.Errorf("echo answered %q", got)
		}
		// An older version lists its own functions and calls them at its path.
		versions := p.eval(`fetch('/api/doc', {method: 'POST'}).then(r => r.json()).then(m => m.result.versions.join(' '))`)
		oldest := strings.Fields(versions)[0]
		p.do(chromedp.SetValue(chromedp.CSS("#api-version"), oldest))
		p.poll(fmt.Sprintf(`location.hash === '#/api?v=%s&fn=echo' && document.getElementById('fn-curl')?.textContent.includes('/api/%s/echo')`, oldest, oldest))
		wantOld := p.eval(fmt.Sprintf(`fetch('/api/%s/doc', {method: 'POST'}).then(r => r.json()).then(m => m.result.functions.map(f => f.name).join(' '))`, oldest))
		if got := p.eval(`[...document.querySelectorAll('#api-functions a')].map(a => a.textContent).join(' ')`); got != wantOld {
			t.Errorf("version %s lists %s\nwant %s", oldest, got, wantOld)
		}
		if wantOld == want {
			t.Errorf("versions %s: the oldest has the same functions as the latest", versions)
		}
		p.do(chromedp.SetValue(chromedp.CSS("#api-version"), strings.Fields(versions)[len(strings.Fields(versions))-1]))
		p.poll(`!document.getElementById('fn-curl')?.textContent.includes('/api/` + oldest + `/')`)

		// A function that needs the session gets it.
		p.do(chromedp.Click(chromedp.CSS(`#api-functions a[data-fn=list-dashboards]`)))
		p.poll(`document.getElementById('fn-name')?.textContent === 'list-dashboards'`)
		p.do(chromedp.Click(chromedp.CSS("#fn-call")))
		p.poll(`document.getElementById('fn-answer').textContent.includes('"Console"')`)
	})

	t.Run("looks", func(t *testing.T) {
		p := &page{t: t, ctx: tab}
		views := []struct{ name, hash, ready string }{
			{"dashboard", dashboard + "?range=6h", `document.querySelectorAll('.widget').length >= 6 && document.querySelectorAll('.widget-foot .accumulated').length === document.querySelectorAll('.widget').length`},
			{"explore", "#/explore?q=traffic+BY+time(300)%2C+protocol&range=6h", `document.querySelector('#explore-chart path.series')`},
			{"api", "#/api?fn=query", `document.getElementById('fn-name')?.textContent === 'query'`},
			{"settings", "#/settings", `!document.getElementById('settings-view').hidden && document.querySelector('#settings-fields input')`},
			{"list", "#/", `!document.getElementById('list-view').hidden && document.querySelector('.dash-card')`},
		}
		for _, theme := range []string{"light", "dark"} {
			p.colorScheme(theme)
			for _, width := range []int64{1440, 360} {
				p.do(chromedp.EmulateViewport(width, 900))
				for _, v := range views {
					p.goTo(v.hash)
					p.poll(v.ready)
					p.do(chromedp.Sleep(300 * time.Millisecond)) // let the charts draw at this width
					if width == 360 {
						if got := p.eval(`String(document.documentElement.scrollWidth)`); got != "360" {
							t.Errorf("%s %s at 360 px is %s px wide", theme, v.name, got)
						}
					}
					if bad := p.eval(lowContrast); bad != "" {
						t.Errorf("%s %s at %d px: text below AA contrast:\n%s", theme, v.name, width, bad)
					}
					p.screenshot(filepath.Join(shots, fmt.Sprintf("%s-%s-%d.png", v.name, theme, width)))
				}
			}
		}
		p.do(chromedp.EmulateViewport(1440, 1000))
		// Keyboard focus is visible.
		p.goTo(dashboard)
		p.do(chromedp.WaitVisible(chromedp.CSS("#dashboard-view")),
			chromedp.Focus(chromedp.CSS("#rename-dashboard")), chromedp.KeyEvent("\t"))
		if got := p.eval(`getComputedStyle(document.activeElement).outlineStyle + ' ' + document.activeElement.id`); !strings.HasPrefix(got, "solid") {
			t.Errorf("the focused element has outline %q", got)
		}
	})
	p.do(chromedp.Sleep(300 * time.Millisecond))
	if msgs := problems(); len(msgs) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
	}
}

// lowContrast lists the visible texts whose contrast with what is behind them is below WCAG AA
// (4.5:1, or 3:1 for large text); disabled controls are exempt.
const lowContrast = `(() => {
  const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
  const behind = (e) => {
    for (; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || c[3] > 0.5) return c.slice(0, 3);
    }
    return rgb(getComputedStyle(document.documentElement).backgroundColor).slice(0, 3);
  };
  const out = [];
  for (const e of document.querySelectorAll('body *')) {
    if (!e.offsetParent && getComputedStyle(e).position !== 'fixed') continue;
    if (e.closest('svg, [disabled], [hidden], .tooltip, .editor-highlight')) continue;
    if (![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const s = getComputedStyle(e);
    if (s.visibility === 'hidden' || Number(s.opacity) === 0) continue;
    const a = lum(rgb(s.color)), b = lum(behind(e));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const large = parseFloat(s.fontSize) >= 24 || (parseFloat(s.fontSize) >= 18.5 && Number(s.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) out.push(e.tagName + '.' + e.className + ' "' + e.textContent.trim().slice(0, 30) + '" ' + ratio.toFixed(2));
  }
  return [...new Set(out)].slice(0, 15).join('\n');
})()`
