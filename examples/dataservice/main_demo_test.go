package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/internal/testutil"
)

// TestDemoShowroom starts the service as the README's first command does (-demo, here with a
// temporary -data) and finds through the API what a newcomer should see in the first minutes:
// percentiles for several applications, zones, AS numbers and countries, server names,
// interface and exporter names, both dashboards, the demo's zones, applications and alert
// rules (the default administrator's, labelled), and an alert firing (the demo starts in its
// recurring incident).
func TestDemoShowroom(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the demo and waits for its backfill")
	}
	t.Parallel()
	data := t.TempDir()
	t0 := time.Now().Unix()
	p := startService(t, "-addr", "127.0.0.1:0", "-data", data, "-demo")
	if !strings.Contains(p.log.String(), `"msg":"demo: synthetic traffic is stored with the real records`) {
		t.Errorf("the start-up log does not say that -demo stores synthetic traffic:\n%s", p.log)
	}
	c := adminClient(t, p, data)
	ctx := context.Background()
	rows := func(expr string) [][2][]any {
		t.Helper()
		var res []struct{ Data [][2][]any }
		if err := c.Call(ctx, "query", map[string]any{"expr": expr}, &res); err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return res[0].Data
	}
	// The backfill takes 6 s on a quiet machine (BENCHMARKS.md) but past 2 min was seen at load
	// 35, with the race detector: the issue asks for "a few minutes".
	testutil.Until(t, 4*time.Minute, "records of the last minutes (the backfill's end)", func() error {
		if rows("records SINCE @now-300")[0][1][0].(float64) == 0 {
			return errors.New("none yet")
		}
		return nil
	})

	apps := 0
	for _, r := range rows(`p95(srt), srt, server.rtt BY application`) {
		if r[1][0] != nil && r[1][1] != nil && r[1][2] != nil {
			apps++
		}
	}
	if apps < 5 {
		t.Errorf("%d applications with p95(srt), srt and server.rtt, want at least 5", apps)
	}
	keys := func(expr string) []string {
		var out []string
		for _, r := range rows(expr) {
			out = append(out, fmt.Sprint(r[0]...))
		}
		return out
	}
	zones := keys("traffic BY client.zone")
	for _, z := range []string{"Head office", "Branches/Lyon", "Data centre", "Customers/Blue Harbour"} {
		if !slices.Contains(zones, z) {
			t.Errorf("traffic BY client.zone: %q, want %s", zones, z)
		}
	}
	var asns, countries, names, ifs int
	for _, r := range rows("traffic BY server.asn, server.country TOP 50") {
		if as, ok := r[0][0].(map[string]any); ok && as["asn"].(float64) >= 64496 && as["name"] != "" {
			asns++
		}
		if cc, ok := r[0][1].(string); ok && len(cc) == 2 {
			countries++
		}
	}
	for _, r := range rows("records BY server.name TOP 50") {
		if n, ok := r[0][0].(string); ok && strings.Contains(n, "example") {
			names++
		}
	}
	for _, r := range rows("records BY exporter.name, in_if TOP 50") {
		if i, ok := r[0][1].(map[string]any); ok && r[0][0] != nil && i["name"] != nil && i["name"] != "" {
			ifs++
		}
	}
	if asns < 3 || countries < 3 || names < 3 || ifs < 3 {
		t.Errorf("%d AS numbers, %d countries, %d server names, %d named interfaces: want at least 3 each", asns, countries, names, ifs)
	}
	// The demo's routes (no -bgp here): AS paths and communities on both sides, and the route
	// panel's query on the partner's API answers its route.
	for _, side := range []string{"server", "client"} {
		paths := 0
		for _, r := range rows("traffic BY " + side + ".as_path, " + side + ".communities TOP 50") {
			if r[0][0] != nil && r[0][1] != nil {
				paths++
			}
		}
		if paths < 2 {
			t.Errorf("traffic BY %s.as_path, %s.communities: %d routes, want at least 2", side, side, paths)
		}
	}
	if got := fmt.Sprint(rows("records BY server.as_path, server.communities WHERE server.ip = 203.0.113.40 TOP 20")); !strings.HasPrefix(got, "[[[[64511 65536] [64496:100 64496:1:64511]]") {
		t.Errorf("the partner's API's routes: %s, want AS64511 › AS65536 and its communities", got)
	}

	var dashboards []struct{ ID, Title string }
	if err := c.Call(ctx, "list-dashboards", nil, &dashboards); err != nil {
		t.Fatal(err)
	}
	titles := []string{}
	for _, d := range dashboards {
		titles = append(titles, d.Title)
		var full struct {
			Widgets []struct {
				Title   string
				Queries []string
			}
		}
		if err := c.Call(ctx, "get-dashboard", map[string]any{"id": d.ID}, &full); err != nil {
			t.Fatal(err)
		}
		for _, w := range full.Widgets {
			for _, q := range w.Queries {
				if rs := rows(q); len(rs) == 0 || slices.ContainsFunc(rs[0][1], func(v any) bool { return v == nil }) {
					t.Errorf("%s: widget %q: %s answers %v, want values", d.Title, w.Title, q, rs)
				}
			}
		}
	}
	if !slices.Contains(titles, "Network overview") || !slices.Contains(titles, "Application performance") {
		t.Errorf("dashboards %q, want the overview and Application performance", titles)
	}
	var zs, as []struct{ Name string }
	if err := c.Call(ctx, "list-zones", nil, &zs); err != nil || len(zs) < 5 {
		t.Errorf("list-zones: %v, %v", zs, err)
	}
	if err := c.Call(ctx, "list-applications", nil, &as); err != nil ||
		!slices.ContainsFunc(as, func(a struct{ Name string }) bool { return a.Name == "orders-db" }) {
		t.Errorf("list-applications: %v, %v", as, err)
	}
	var rules []struct {
		Name, Owner, Query string
		Labels             map[string]string
	}
	if err := c.Call(ctx, "list-alert-rules", nil, &rules); err != nil || len(rules) < 2 {
		t.Fatalf("list-alert-rules: %v, %v", rules, err)
	}
	for _, r := range rules {
		if r.Owner != "admin" || r.Labels["demo"] != "true" {
			t.Errorf("rule %+v: want the administrator's, labelled demo", r)
		}
	}
	// The rules that fire during the incident hold in an incident of the backfill and not
	// between two: the demo started in an incident a minute old (within the start-up time),
	// the one before ran from about t0-660 to t0-540.
	incident, calm := fmt.Sprintf("SINCE %d UNTIL %d", t0-650, t0-560), fmt.Sprintf("SINCE %d UNTIL %d", t0-400, t0-280)
	firing := 0
	for _, r := range rules {
		if !strings.Contains(r.Query, "SINCE @now-120") {
			continue
		}
		firing++
		at := func(period string) int { return len(rows(strings.Replace(r.Query, "SINCE @now-120", period, 1))) }
		if n, m := at(incident), at(calm); n == 0 || m != 0 {
			t.Errorf("rule %q: %d groups in an incident (%s), %d between (%s); want some, then none", r.Name, n, incident, m, calm)
		}
	}
	if firing < 2 {
		t.Errorf("%d rules over the last 2 minutes, want the database's and the link's", firing)
	}
	testutil.Until(t, 4*time.Minute, "alert firing", func() error {
		var alerts []struct{ State string }
		if err := c.Call(ctx, "list-alerts", map[string]any{"state": "firing"}, &alerts); err != nil {
			t.Fatal(err)
		}
		if len(alerts) == 0 {
			return errors.New("none yet")
		}
		return nil
	})
	p.stop(t)
}
