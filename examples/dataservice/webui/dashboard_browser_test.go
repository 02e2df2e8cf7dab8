package webui_test

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/chromedp/chromedp"
)

func (p *page) createDashboard(title string) {
	p.t.Helper()
	p.do(
		chromedp.Click(chromedp.CSS("#new-dashboard")),
		chromedp.WaitVisible(chromedp.CSS("#dashboard-title-input")),
		chromedp.SendKeys(chromedp.CSS("#dashboard-title-input"), title),
		chromedp.SendKeys(chromedp.CSS("#dashboard-description-input"), "Traffic of the demo network and of the test's own records."),
		chromedp.Click(chromedp.CSS("#dashboard-save")),
		chromedp.WaitVisible(chromedp.CSS("#dashboard-view")),
	)
	if got := p.text("#dashboard-title"); got != title {
		p.t.Errorf("dashboard title %q, want %q", got, title)
	}
}

// fillWidget opens the widget editor and fills it in.
func (p *page) fillWidget(title, kind, query string) {
	p.t.Helper()
	p.do(
		chromedp.Click(chromedp.CSS("#add-widget")),
		chromedp.WaitVisible(chromedp.CSS("#widget-title")),
		chromedp.SendKeys(chromedp.CSS("#widget-title"), title),
		chromedp.SetValue(chromedp.CSS("#widget-kind"), kind),
		chromedp.SendKeys(chromedp.CSS("#widget-queries textarea"), query),
		chromedp.Click(chromedp.CSS("#widget-save")),
	)
}

func (p *page) addWidget(title, kind, query string) {
	p.t.Helper()
	before := p.eval(`String(document.querySelectorAll('.widget').length)`)
	p.fillWidget(title, kind, query)
	p.poll(fmt.Sprintf(`!document.querySelector('#widget-dialog').open && document.querySelectorAll('.widget').length === %s + 1`, before))
}

// addBadWidget tries to save a widget whose query is wrong, checks the QUERY-SYNTAX message
// and closes the editor. With shot, it takes a screenshot of the editor there.
func (p *page) addBadWidget(query, shot string) {
	p.t.Helper()
	p.fillWidget("Bad", "number", query)
	p.do(chromedp.WaitVisible(chromedp.CSS(".query-error")))
	msg := p.text(".query-error")
	pos := strings.Index(query, "nosuch")
	want := fmt.Sprintf("QUERY-SYNTAX at position %d: expected ", pos)
	if !strings.Contains(msg, want) {
		p.t.Errorf("query error %q does not contain %q", msg, want)
	}
	// A caret under the position.
	if !strings.Contains(msg, query+"\n"+strings.Repeat(" ", pos)+"^") {
		p.t.Errorf("query error %q does not point at position %d", msg, pos)
	}
	if shot != "" {
		p.screenshot(shot)
	}
	p.do(chromedp.Click(chromedp.CSS("#widget-dialog [data-close]")),
		chromedp.WaitNotVisible(chromedp.CSS("#widget-dialog")))
}

// editFirstWidgetTitle appends to the first widget's title in its editor.
func (p *page) editFirstWidgetTitle(suffix string) {
	p.t.Helper()
	title := p.text(".widget h3")
	p.do(
		chromedp.Click(chromedp.CSS(".widget .edit-widget")),
		chromedp.WaitVisible(chromedp.CSS("#widget-title")),
		chromedp.SendKeys(chromedp.CSS("#widget-title"), suffix),
		chromedp.Click(chromedp.CSS("#widget-save")),
		chromedp.WaitNotVisible(chromedp.CSS("#widget-dialog")),
	)
	p.poll(fmt.Sprintf(`document.querySelector('.widget h3').textContent === %q`, title+suffix))
	p.poll(`document.querySelector('.widget .big-value')`) // drawn again from its query
}

func (p *page) deleteWidget(sel string) {
	p.t.Helper()
	before := p.eval(`String(document.querySelectorAll('.widget').length)`)
	p.do(
		chromedp.Click(chromedp.CSS(sel+" .delete-widget")),
		chromedp.WaitVisible(chromedp.CSS("#confirm-ok")),
		chromedp.Click(chromedp.CSS("#confirm-ok")),
	)
	p.poll(fmt.Sprintf(`document.querySelectorAll('.widget').length === %s - 1 && !document.querySelector(%q)`, before, sel))
}

func (p *page) deleteDashboard(title string) {
	p.t.Helper()
	p.do(
		chromedp.Click(chromedp.CSS("#delete-dashboard")),
		chromedp.WaitVisible(chromedp.CSS("#confirm-ok")),
		chromedp.Click(chromedp.CSS("#confirm-ok")),
		chromedp.WaitVisible(chromedp.CSS("#list-view")),
	)
	p.poll(fmt.Sprintf(`![...document.querySelectorAll('.dash-card h2')].some(h => h.textContent === %q)`, title))
}

func (p *page) signOut() {
	p.t.Helper()
	p.do(chromedp.Click(chromedp.CSS("#logout")), chromedp.WaitVisible(chromedp.CSS("#login-form")))
	got := p.eval(`fetch('/api/list-dashboards', {method: 'POST'}).then(r => r.json()).then(m => m.error)`)
	if got != "API-AUTHENTICATION-NEEDED" {
		p.t.Errorf("after sign-out list-dashboards answers %q, want API-AUTHENTICATION-NEEDED", got)
	}
}

// waitPeriods waits until the widgets at the indexes show answers over those seconds.
func (p *page) waitPeriods(want map[int]int) {
	p.t.Helper()
	var conds []string
	for i, s := range want {
		conds = append(conds, fmt.Sprintf(`f[%d]?.dataset.seconds === '%d'`, i, s))
	}
	p.poll(`(() => { const f = [...document.querySelectorAll('.widget-foot .accumulated')]; return ` + strings.Join(conds, " && ") + `; })()`)
}

// checkAxes checks the time series of the widget at sel over a period of seconds: rates in
// bit/s on every tick of the value axis and in the tooltip, a time axis that spans the period
// with time labels that do not overlap, and the "6 hours" of the foot.
func (p *page) checkAxes(sel string, seconds int) {
	p.t.Helper()
	chart := sel + " svg.chart"
	p.poll(fmt.Sprintf(`document.querySelector(%q)?.dataset.unit === 'bit/s'`, chart))
	span := p.eval(fmt.Sprintf(`(() => { const c = document.querySelector(%q); return String(c.dataset.until - c.dataset.since); })()`, chart))
	if span != strconv.Itoa(seconds) {
		p.t.Errorf("over %d s the time axis spans %s s (%s)", seconds, span,
			p.eval(fmt.Sprintf(`(() => { const c = document.querySelector(%q); return c.dataset.win + ' ' + c.getAttribute('aria-label'); })()`, chart)))
	}
	if bad := p.eval(fmt.Sprintf(`[...document.querySelectorAll(%q)].filter(t => !/bit\/s$/.test(t.textContent)).map(t => t.textContent).join(' | ')`, chart+" .tick-y")); bad != "" {
		p.t.Errorf("over %d s value ticks without bit/s: %s", seconds, bad)
	}
	overlap := p.eval(fmt.Sprintf(`(() => { const r = [...document.querySelectorAll(%q)].map(t => t.getBoundingClientRect());
		if (r.length < 2) return 'only ' + r.length + ' time labels';
		return r.slice(1).some((b, i) => b.left < r[i].right + 4) ? r.map(b => b.left + '-' + b.right).join(' ') : ''; })()`, chart+" .tick-x"))
	if overlap != "" {
		p.t.Errorf("over %d s the time labels collide: %s", seconds, overlap)
	}
}

func everyWidget(n, seconds int) map[int]int {
	m := map[int]int{}
	for i := range n {
		m[i] = seconds
	}
	return m
}
