package webui_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/query"
)

// TestBrowserAlerts creates an alert rule from an Explore query, sees it fire on the Alerts
// page and in the section bar's badge, acknowledges it, finds the transition in the history,
// and the marker where it fired on a time series.
func TestBrowserAlerts(t *testing.T) {
	t.Parallel()
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

// TestBrowserAlertRules opens the Alerts page as a user who is not an administrator: the
// rules list says who owns each rule and how its last evaluation went, an error included
// (the administrator's rule over more groups than a query may yield: TOO-MANY-GROUPS); Delete
// shows on the user's own rule only, and deletes it after a confirmation; at 390 px the page
// is no wider than the phone and the rule's Delete is on the screen.
func TestBrowserAlertRules(t *testing.T) {
	t.Parallel()
	chrome := testenv.Chromium(t)
	srv, _, _ := startServiceWith(t, app.Config{Query: query.Configuration{MaxQueryGroups: 10}})
	ingestKnown(t, srv) // 20 client ports
	ctx := context.Background()
	admin := newSession(t, srv)
	if _, err := client.Call(ctx, admin, authapi.CreateUser, authapi.CreateUserArgs{User: "bob", Password: "bob's password"}); err != nil {
		t.Fatal(err)
	}
	bob := sessionOf(t, srv, "bob", "bob's password")
	for _, c := range []struct {
		as   *client.Client
		name string
	}{{admin, "every port"}, {bob, "bob's rule"}} {
		q := "records BY client.port HAVING records > 1000 SINCE @now-3600"
		if c.as == bob {
			q = "traffic HAVING traffic > 1000000000 SINCE @now-3600"
		}
		if _, err := client.Call(ctx, c.as, api.CreateAlertRule, api.CreateAlertRuleArgs{Name: c.name, Query: q, Interval: "10s"}); err != nil {
			t.Fatal(err)
		}
	}
	browser := testenv.Browser(t, chrome)
	p, problems := openTab(t, browser)
	shots := shotDir(t)
	p.signInAs(srv.URL+"/#/alerts", "bob", "bob's password", "#alerts-view")
	row := func(name string) string {
		return fmt.Sprintf(`[...document.querySelectorAll('#alert-rules tr')].find(tr => tr.cells[0].textContent === %q)`, name)
	}
	p.poll(row("every port") + `?.querySelector('.rule-error')?.textContent.includes('TOO-MANY-GROUPS')`)
	p.poll(row("bob's rule") + `?.querySelector('.rule-checked')?.textContent !== 'Not yet'`)
	if got := p.eval(row("every port") + `.cells[5].textContent + ' ' + ` + row("bob's rule") + `.cells[5].textContent`); got != "admin bob" {
		t.Errorf("the owners read %q, want admin bob", got)
	}
	if got := p.eval(`String(` + row("every port") + `.querySelector('button') !== null)`); got != "false" {
		t.Errorf("bob sees a button on the administrator's rule: %s", p.eval(row("every port")+`.innerText`))
	}
	p.do(chromedp.EmulateViewport(390, 844))
	p.checkFits("the Alerts page", 390)
	if got := p.eval(`(b => String(b.getBoundingClientRect().right <= innerWidth))(` + row("bob's rule") + `.querySelector('.delete-rule'))`); got != "true" {
		t.Errorf("at 390 px the rule's Delete is off the screen")
	}
	p.screenshot(filepath.Join(shots, "alert-rules-390.png"))
	p.do(chromedp.Click(chromedp.CSS(`#alert-rules tr .delete-rule`)),
		chromedp.WaitVisible(chromedp.CSS("#confirm-ok")),
		chromedp.Click(chromedp.CSS("#confirm-ok")))
	p.poll(`document.querySelectorAll('#alert-rules tr').length === 1 && !` + row("bob's rule"))
	if rs, err := client.Call(ctx, admin, api.ListAlertRules, decl.None{}); err != nil || len(rs) != 1 || rs[0].Name != "every port" {
		t.Errorf("after bob's Delete the rules are %+v, %v", rs, err)
	}
	if msgs := problems(); len(msgs) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
	}
}
