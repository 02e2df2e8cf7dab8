package webui_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// testState checks the small things a user saw go wrong: a first visit greeted as an ended
// session, an unknown dashboard shown as the previous one frozen, a number widget showing
// the first row of many as the total, raw error codes, durations in seconds, titles cut at
// 360 px.
func testState(t *testing.T, browser context.Context, srv *httptest.Server) {
	p, problems := openTab(t, browser)
	p.do(chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#login-form")))
	if got := p.eval(`document.getElementById('login-error').hidden ? '' : document.getElementById('login-error').textContent`); got != "" {
		t.Errorf("a first visit says %q", got)
	}
	for _, tt := range []struct{ js, want string }{
		{`m.describeError('CANCELLED', {reason: 'the server is shutting down'})`,
			"The service stopped this query (it may be restarting): it will be asked again."},
		{`m.describeError('SOMETHING-NEW', {reason: 'a reason'})`, "a reason (SOMETHING-NEW)"},
		{`m.describeError('SOMETHING-NEW', {limit: 3})`, "The service could not answer (SOMETHING-NEW)."},
	} {
		if got := p.eval(`import('/api.js').then(m => ` + tt.js + `)`); got != tt.want {
			t.Errorf("%s = %q, want %q", tt.js, got, tt.want)
		}
	}
	for in, want := range map[string]string{"6045": "1 h 40 min", "90": "90 s", "21600": "6 hours", "93784": "1 day 2 h", "750": "12 min 30 s"} {
		if got := p.eval(`import('/charts.js').then(m => m.formatDuration(` + in + `))`); got != want {
			t.Errorf("formatDuration(%s) = %q, want %q", in, got, want)
		}
	}

	p.signIn(srv.URL + "/")
	p.createDashboard("State")
	dashboard := p.eval(`location.hash`)
	// A number over many rows of bytes is their total, with the average rate.
	p.addWidget("Known traffic by port, a very long title that a phone cuts", "number",
		"traffic BY client.port WHERE client.ip IN "+knownClients)
	p.poll(fmt.Sprintf(`document.querySelector('.widget[data-kind=number] .big-value')?.title === '%d'`, knownTotal))
	if got := p.text(`.widget[data-kind=number] .rates`); !strings.HasPrefix(got, "avg ") || !strings.HasSuffix(got, "bit/s") {
		t.Errorf("the number's rates say %q", got)
	}
	// A number over many rows of a ratio says which row it shows.
	p.addWidget("Ratio", "number", "client.traffic / traffic BY client.port WHERE client.ip IN "+knownClients)
	p.poll(`[...document.querySelectorAll('.widget[data-kind=number] .big-label')].some(l => / \(first of 20 rows\)$/.test(l.textContent))`)

	// A table sorts by the column clicked, keeps that order as it is answered again, and gives
	// each row's share of the whole.
	p.addWidget("Known ports", "table", "traffic BY client.port WHERE client.ip IN "+knownClients)
	table := `.widget[data-kind=table]`
	firstRow := fmt.Sprintf(`[...document.querySelector('%s tbody tr').cells].map(c => c.textContent).join(' ')`, table)
	p.poll(fmt.Sprintf(`document.querySelectorAll('%s tbody tr').length === 20`, table))
	if got := p.eval(fmt.Sprintf(`[...document.querySelectorAll('%s th')].map(c => c.textContent).join(',')`, table)); got != "client.port,traffic,Share" {
		t.Errorf("the table's columns are %s", got)
	}
	p.do(chromedp.Click(chromedp.CSS(table + " th:first-child button")))
	p.poll(firstRow + ` === '50001 20.5 kB 9.3 %'`)
	stamp := p.eval(fmt.Sprintf(`document.querySelector('%s .updated').dataset.at`, table))
	p.poll(fmt.Sprintf(`document.querySelector('%s .updated').dataset.at !== '%s'`, table, stamp))
	if got := p.eval(firstRow); got != "50001 20.5 kB 9.3 %" {
		t.Errorf("answered again, the sorted table starts with %q", got)
	}
	p.do(chromedp.Click(chromedp.CSS(table + " th:first-child button")))
	p.poll(firstRow + ` === '50020 1.50 kB 0.7 %'`)
	if got := p.eval(fmt.Sprintf(`document.querySelector('%s th').getAttribute('aria-sort')`, table)); got != "descending" {
		t.Errorf("the sorted column's aria-sort is %q", got)
	}

	// The table's CSV is the query's answer: its columns, every row, raw numbers.
	p.eval(`(window.csvBlob = null, URL.createObjectURL = ((make) => (b) => { window.csvBlob = b; return make(b); })(URL.createObjectURL), '')`)
	p.do(chromedp.Click(chromedp.CSS(table + " .csv-widget")))
	p.poll(`window.csvBlob !== null`)
	want := "client.port,traffic\r\n"
	for k := 1; k <= knownPoints; k++ {
		want += fmt.Sprintf("%d,%d\r\n", 50000+k, 1000*(knownPoints+1-k)+500)
	}
	if got := p.eval(`window.csvBlob.text()`); got != want {
		t.Errorf("the table's CSV is\n%s\nwant\n%s", got, want)
	}
	// Copy link copies the view's address.
	p.eval(`(navigator.clipboard.writeText = async (t) => { window.copied = t; }, '')`)
	p.do(chromedp.Click(chromedp.CSS("#copy-link")))
	p.poll(`window.copied === location.href && document.getElementById('copy-link').textContent === 'Link copied'`)

	// Compare overlays the previous period (an hour without the known records: zero).
	p.addWidget("Known over time", "timeseries", "traffic BY time(60) WHERE client.ip IN "+knownClients)
	series := `.widget[data-kind=timeseries]`
	p.poll(fmt.Sprintf(`document.querySelector('%s path.series')`, series))
	p.do(chromedp.Click(chromedp.CSS(series + " .compare-widget")))
	p.poll(fmt.Sprintf(`document.querySelector('%s path.previous')`, series))
	zero := p.eval(fmt.Sprintf(`(() => { const c = document.querySelector('%s svg.chart'); const ys = [...c.querySelector('path.previous').getAttribute('d').matchAll(/[ML][\d.]+,([\d.]+)/g)].map(m => m[1]);
		const axis = c.querySelector('line.axis').getAttribute('y1'); return ys.length > 1 && ys.every(y => Math.abs(y - axis) < 0.2) ? '' : ys.join(' ') + ' vs ' + axis; })()`, series))
	if zero != "" {
		t.Errorf("the previous hour's overlay is not zero: %s", zero)
	}
	// Clicked again it compares with the same period last week, then with nothing.
	p.do(chromedp.Click(chromedp.CSS(series + " .compare-widget")))
	p.poll(fmt.Sprintf(`document.querySelector('%s path.previous title')?.textContent === 'Same period last week, moved forward'`, series))
	p.do(chromedp.Click(chromedp.CSS(series + " .compare-widget")))
	p.poll(fmt.Sprintf(`!document.querySelector('%s path.previous') && document.querySelector('%s .compare-widget').getAttribute('aria-pressed') === 'false'`, series, series))

	// At 360 px the titles wrap rather than being cut.
	p.do(chromedp.EmulateViewport(360, 900))
	p.poll(`[...document.querySelectorAll('.widget h3')].every(h => h.scrollWidth <= h.clientWidth + 1)`)
	p.do(chromedp.EmulateViewport(1440, 1000))

	// The theme switch of the account menu overrides the system's setting, and stays.
	bg := `getComputedStyle(document.documentElement).backgroundColor`
	p.colorScheme("dark")
	systemDark := p.eval(bg)
	p.do(chromedp.Click(chromedp.CSS("#account-menu summary")), chromedp.Click(chromedp.CSS("#theme-switch")))
	p.poll(`document.getElementById('theme-switch').textContent === 'Theme: light'`)
	if got := p.eval(bg); got == systemDark {
		t.Errorf("with the light theme chosen on a dark system the page stays %s", got)
	}
	if bad := p.eval(lowContrast); bad != "" {
		t.Errorf("light theme on a dark system: text below AA contrast:\n%s", bad)
	}
	p.colorScheme("light")
	p.do(chromedp.Click(chromedp.CSS("#theme-switch")))
	p.poll(`document.getElementById('theme-switch').textContent === 'Theme: dark'`)
	p.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#dashboard-view")))
	p.poll(`document.querySelectorAll('.widget svg, .widget .big-value').length > 0`)
	if got := p.eval(bg); got != systemDark {
		t.Errorf("after a reload the dark theme chosen on a light system shows %s, want %s", got, systemDark)
	}
	if bad := p.eval(lowContrast); bad != "" {
		t.Errorf("dark theme on a light system: text below AA contrast:\n%s", bad)
	}
	p.screenshot(filepath.Join(shotDir(t), "theme-dark-chosen.png"))
	p.do(chromedp.Click(chromedp.CSS("#account-menu summary")), chromedp.Click(chromedp.CSS("#theme-switch")))
	p.poll(`document.getElementById('theme-switch').textContent === 'Theme: system' && !document.documentElement.dataset.theme`)

	// An unknown dashboard is not the previous one frozen under a message.
	p.goTo("#/d/no-such-dashboard")
	p.poll(`!document.getElementById('list-view').hidden && document.getElementById('dashboard-view').hidden`)
	if got := p.text("#banner"); !strings.Contains(got, "does not exist") {
		t.Errorf("an unknown dashboard says %q", got)
	}
	p.goTo(dashboard)
	p.poll(`!document.getElementById('dashboard-view').hidden && document.querySelectorAll('.widget').length === 4`)
	if msgs := problems(); len(msgs) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
	}
}
