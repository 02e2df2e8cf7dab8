package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestConsoleBehindHAProxy keeps a live dashboard open in Chromium through haproxy (the shipped
// configuration) in front of two nodes sharing PostgreSQL and ClickHouse, then takes away the
// node that carries its WebSocket twice: first as an upgrade does (SIGTERM with -drain 3s:
// the node answers not ready, haproxy moves new connections away, then it stops), then as a
// crash does (kill -9). Each time every widget keeps its last answer, shows no error, and
// answers again from the other node without a reload.
func TestConsoleBehindHAProxy(t *testing.T) {
	// Serial: t.Setenv sets the environment the service's process inherits.
	if testing.Short() {
		t.Skip("starts PostgreSQL, ClickHouse, two nodes, haproxy and Chromium")
	}
	testenv.Need(t, "haproxy", "haproxy")
	chrome := testenv.Chromium(t)
	ch := testenv.ClickHouse(t)
	db := testenv.StartPostgres(t).Database(t)
	t.Setenv("SVC_ADMIN_PASSWORD", adminPassword)
	args := func(addr string) []string {
		return []string{"-addr", addr, "-data", t.TempDir(), "-postgres", db, "-clickhouse", ch.URL,
			"-proxy-protocol", "127.0.0.1/32", "-metrics", "127.0.0.1:0", "-drain", "3s"}
	}
	addrs := []string{fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t)), fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))}
	nodes := []*process{startService(t, args(addrs[0])...), startService(t, args(addrs[1])...)}
	front := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	hp := testenv.StartHAProxy(t, "deploy/haproxy.cfg", map[string]string{
		"DATASERVICE_LISTEN": front,
		"DATASERVICE_NODE1":  addrs[0],
		"DATASERVICE_NODE2":  addrs[1],
	}, front)
	lb := "https://" + front
	ctx := context.Background()
	api, err := client.New(lb+"/api", client.WithHTTPClient(insecure()))
	if err != nil {
		t.Fatal(err)
	}
	testutil.Until(t, time.Minute, "haproxy sees a ready node", func() error { return api.Call(ctx, "echo", nil, nil) })
	var session string
	if err := api.Call(ctx, "login", map[string]string{"user": "admin", "password": adminPassword}, &session); err != nil {
		t.Fatal(err)
	}
	admin, err := client.New(lb+"/api", client.WithHTTPClient(insecure()), client.WithSession(session))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	var recs []any
	for i := range 20 {
		recs = append(recs, map[string]any{"time": now - int64(60*i), "protocol": "tcp",
			"client": map[string]any{"ip": "192.0.2.1", "port": 40000 + i, "bytes": 1000, "packets": 2},
			"server": map[string]any{"ip": "198.51.100.1", "port": 443, "bytes": 9000, "packets": 8}})
	}
	if err := admin.Call(ctx, "ingest", map[string]any{"records": recs}, nil); err != nil {
		t.Fatal(err)
	}
	var dash struct{ ID string }
	if err := admin.Call(ctx, "create-dashboard", map[string]string{"title": "Wall screen"}, &dash); err != nil {
		t.Fatal(err)
	}
	widgets := []struct{ title, kind, query string }{
		{"Traffic", "number", "traffic"},
		{"Traffic over time", "timeseries", "traffic BY time(60)"},
		{"Servers", "table", "traffic BY server.ip TOP 10"},
	}
	for _, w := range widgets {
		if err := admin.Call(ctx, "create-widget", map[string]any{"dashboard": dash.ID, "title": w.title, "kind": w.kind,
			"queries": []string{w.query}}, nil); err != nil {
			t.Fatal(err)
		}
	}

	tab, cancel := chromedp.NewContext(testenv.Browser(t, chrome))
	defer cancel()
	if err := chromedp.Do(tab); err != nil { // opens the tab for the context's life
		t.Fatalf("opening a tab: %v", err)
	}
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		actx, cancel := context.WithTimeout(tab, time.Minute)
		defer cancel()
		if err := chromedp.Do(actx, actions...); err != nil {
			t.Fatalf("%s: %v\nhaproxy:\n%s", what, err, hp.Log())
		}
	}
	eval := func(js string) string {
		t.Helper()
		actx, cancel := context.WithTimeout(tab, 30*time.Second)
		defer cancel()
		v, err := chromedp.Run(actx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("evaluating %s: %v", js, err)
		}
		return v
	}
	poll := func(what, js string) {
		t.Helper()
		actx, cancel := context.WithTimeout(tab, time.Minute)
		defer cancel()
		if err := chromedp.Do(actx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
			t.Fatalf("%s: %v; the page shows:\n%s", what, err, eval(`document.querySelector('main')?.innerText || document.body.innerText`))
		}
	}
	run("signing in",
		chromedp.Navigate(lb+"/?live=ws"),
		chromedp.WaitVisible(chromedp.CSS("#login-form")),
		chromedp.SetValue(chromedp.CSS("#login-user"), "admin"),
		chromedp.SendKeys(chromedp.CSS("#login-password"), adminPassword),
		chromedp.Click(chromedp.CSS("#login-submit")),
		chromedp.WaitVisible(chromedp.CSS("#list-view")),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = '#/d/%s'`, dash.ID)),
	)
	// allLive: every widget has an answer newer than since (ms), none reconnecting or in error.
	allLive := func(since string) string {
		return fmt.Sprintf(`(() => { const u = [...document.querySelectorAll('.widget-foot .updated')];
			return u.length === %d && u.every(e => e.textContent.startsWith('Updated') && +e.dataset.at > %s) &&
				!document.querySelector('.widget.reconnecting, .widget-error') &&
				[...document.querySelectorAll('#widget-grid .widget-body')].every(b => b.querySelector('svg, .big-value, table')); })()`,
			len(widgets), since)
	}
	poll("the dashboard is live", allLive("0"))
	carrier := func() int {
		t.Helper()
		n := -1
		testutil.Until(t, time.Minute, "a node carries the console's WebSocket", func() error {
			for i, p := range nodes {
				if p == nil {
					continue
				}
				if c, err := wsConnections(p); err == nil && c == 1 {
					n = i
					return nil
				}
			}
			return fmt.Errorf("no node has one WebSocket")
		})
		return n
	}
	// calm checks, until the widgets answer again, that they never show an error; it gives how
	// long they took.
	calm := func(what string, since string, from time.Time) {
		t.Helper()
		testutil.Until(t, time.Minute, what+": the widgets to answer again", func() error {
			if errs := eval(`[...document.querySelectorAll('.widget-error')].map(e => e.textContent).join(' | ')`); errs != "" {
				t.Fatalf("%s: widgets show errors: %s", what, errs)
			}
			if eval(`String(`+allLive(since)+`)`) != "true" {
				return fmt.Errorf("not all live\nhaproxy:\n%s", hp.Log())
			}
			return nil
		})
		t.Logf("%s: every widget answered again %.1f s later", what, time.Since(from).Seconds())
	}

	// An upgrade: SIGTERM with -drain 3s.
	victim := carrier()
	nodes[victim].stop(t) // returns once the node has exited, -drain's 3 s and all
	nodes[victim] = nil
	since, at := eval(`String(Date.now())`), time.Now()
	calm("after the drain of node "+fmt.Sprint(victim+1), since, at)
	if c := carrier(); c == victim {
		t.Errorf("the WebSocket is on the stopped node %d", c+1)
	}
	if got := eval(`document.getElementById('live-state').textContent`); got != "Live" {
		t.Errorf("after the drain, the live state says %q", got)
	}
	nodes[victim] = startService(t, args(addrs[victim])...)

	// A crash: kill -9 of the node that carries the WebSocket now.
	victim = carrier()
	since, at = eval(`String(Date.now())`), time.Now()
	if err := nodes[victim].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = nodes[victim].cmd.Wait()
	nodes[victim] = nil
	calm("after node "+fmt.Sprint(victim+1)+" was killed", since, at)
	if c := carrier(); c == victim {
		t.Errorf("the WebSocket is on the dead node %d", c+1)
	}
	if got := eval(`[...document.querySelectorAll('.widget .big-value')].map(e => e.textContent).join()`); !strings.Contains(got, "200") {
		t.Errorf("the number widget shows %q, want the 200 kB ingested", got)
	}
}
