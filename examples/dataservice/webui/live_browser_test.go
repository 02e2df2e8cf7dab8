package webui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// widgetSpec is a widget a test adds to a dashboard.
type widgetSpec struct{ title, kind, query string }

// liveTabs is one live dashboard open in two tabs: one following its queries over the
// WebSocket ("ws"), one over HTTP streaming ("http"). The recovery tests take the service or
// the network away under it and check what an operator at a wall screen sees.
type liveTabs struct {
	t        *testing.T
	tabs     map[string]*page
	problems map[string]func() []string
	widgets  int
}

// openLiveTabs signs in at base, makes a dashboard with the widgets, opens it in both tabs and
// waits until every widget has drawn an answer.
func openLiveTabs(t *testing.T, browser context.Context, base, title string, widgets []widgetSpec) *liveTabs {
	t.Helper()
	ws, wsProblems := openTab(t, browser)
	ws.signIn(base + "/?live=ws")
	ws.createDashboard(title)
	for _, w := range widgets {
		ws.addWidget(w.title, w.kind, w.query)
	}
	dashboard := ws.eval(`location.hash`)
	httpTab, httpProblems := openTab(t, browser)
	httpTab.signIn(base + "/?live=http")
	httpTab.goTo(dashboard)
	l := &liveTabs{t: t, tabs: map[string]*page{"ws": ws, "http": httpTab},
		problems: map[string]func() []string{"ws": wsProblems, "http": httpProblems}, widgets: len(widgets)}
	for _, p := range l.tabs {
		p.pollLong(l.allLive("0"), time.Minute)
	}
	return l
}

// allLive is true when every widget shows an answer newer than since (ms since the epoch),
// none reconnecting.
func (l *liveTabs) allLive(since string) string {
	return fmt.Sprintf(`(() => { const u = [...document.querySelectorAll('.widget-foot .updated')];
		return u.length === %d && u.every(e => e.textContent.startsWith('Updated') && +e.dataset.at > %s) &&
			!document.querySelector('.widget.reconnecting') &&
			[...document.querySelectorAll('#widget-grid .widget-body')].every(b => b.querySelector('svg, .big-value, table')); })()`,
		l.widgets, since)
}

// expectReconnecting waits until every widget of both tabs says it is reconnecting, then
// checks the calm state an operator should see: the last answers still on screen, no error,
// "Reconnecting…" in the header and in the widgets' feet.
func (l *liveTabs) expectReconnecting(when string, timeout time.Duration) {
	l.t.Helper()
	start := time.Now()
	for name, p := range l.tabs {
		p.pollLong(fmt.Sprintf(`document.querySelectorAll('.widget.reconnecting').length === %d`, l.widgets), timeout)
		l.t.Logf("%s: every widget said it was reconnecting %.1f s %s", name, time.Since(start).Seconds(), when)
		if got := p.eval(`String([...document.querySelectorAll('#widget-grid .widget-body')].filter(b => b.querySelector('svg, .big-value, table')).length)`); got != fmt.Sprint(l.widgets) {
			l.t.Errorf("%s: %s of %d widgets still show their answer %s", name, got, l.widgets, when)
		}
		if got := p.eval(`[...document.querySelectorAll('.widget-error')].map(e => e.textContent).join(' | ')`); got != "" {
			l.t.Errorf("%s: widgets show errors %s: %s", name, when, got)
		}
		if got := p.text("#live-state"); got != "Reconnecting…" {
			l.t.Errorf("%s: the live state says %q %s", name, got, when)
		}
		if got := p.text(".widget .reconnecting-note"); got != "Reconnecting…" {
			l.t.Errorf("%s: a widget's foot says %q %s", name, got, when)
		}
	}
}

// expectResumed waits until every widget of both tabs has answered again, and the header
// says Live.
func (l *liveTabs) expectResumed(when string) {
	l.t.Helper()
	start := time.Now()
	for name, p := range l.tabs {
		p.pollLong(l.allLive(p.eval(`String(Date.now())`)), time.Minute)
		l.t.Logf("%s: every widget answered again %.1f s %s", name, time.Since(start).Seconds(), when)
		if got := p.text("#live-state"); got != "Live" {
			l.t.Errorf("%s: the live state says %q %s", name, got, when)
		}
	}
}

// expectNoProblems checks that neither tab logged an error or exception, but for the
// connections the browser tried and gave up on while the service was away.
func (l *liveTabs) expectNoProblems() {
	l.t.Helper()
	for name, problems := range l.problems {
		var msgs []string
		for _, m := range problems() {
			if !strings.Contains(m, "net::ERR_") && !strings.Contains(m, "WebSocket connection to") {
				msgs = append(msgs, m)
			}
		}
		if len(msgs) > 0 {
			l.t.Errorf("%s: the page logged problems:\n%s", name, strings.Join(msgs, "\n"))
		}
	}
}
