package app_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/demo"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
)

// TestDemoOverview checks that a -demo service starts with a dashboard whose queries are valid,
// and only once.
func TestDemoOverview(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := app.Config{DataDir: t.TempDir(), Inlet: inlet.Configuration{Demo: true}}
	titles := func(c *client.Client) map[string]string {
		list, err := client.Call(ctx, c, api.ListDashboards, decl.None{})
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]string{}
		for _, d := range list {
			ids[d.Title] = d.ID
			if !strings.Contains(d.Description, "-demo") {
				t.Errorf("dashboard %q: description %q does not say it is the demo's", d.Title, d.Description)
			}
		}
		return ids
	}
	c, stop := openAsAdmin(t, cfg)
	ids := titles(c)
	if len(ids) != 2 || ids["Network overview"] == "" || ids["Application performance"] == "" {
		t.Fatalf("dashboards %v, want the overview and Application performance", ids)
	}
	for _, id := range ids {
		d, err := client.Call(ctx, c, api.GetDashboard, api.IDArgs{ID: id})
		if err != nil || len(d.Widgets) == 0 {
			t.Fatalf("dashboard: %+v, %v", d, err)
		}
		answerWidgets(t, c, d, false)
	}
	rules, err := client.Call(ctx, c, api.ListAlertRules, decl.None{})
	if err != nil || len(rules) != 3 {
		t.Fatalf("alert rules: %+v, %v", rules, err)
	}
	for _, r := range rules {
		if r.Owner != "admin" || r.Labels["demo"] != "true" {
			t.Errorf("rule %q: owner %q, labels %v; want the administrator's, labelled demo", r.Name, r.Owner, r.Labels)
		}
	}
	// What the operator deletes stays deleted; the rest is not made twice.
	if _, err := client.Call(ctx, c, api.DeleteDashboard, api.IDArgs{ID: ids["Application performance"]}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Call(ctx, c, api.DeleteAlertRule, api.IDArgs{ID: rules[0].ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Call(ctx, c, api.DeleteZone, api.NameArgs{Name: "Branches/Lyon"}); err != nil {
		t.Fatal(err)
	}
	stop()
	c, stop = openAsAdmin(t, cfg)
	defer stop()
	if ids := titles(c); len(ids) != 1 || ids["Network overview"] == "" {
		t.Errorf("after a restart, dashboards %v, want the overview alone", ids)
	}
	if rules, err := client.Call(ctx, c, api.ListAlertRules, decl.None{}); err != nil || len(rules) != 2 {
		t.Errorf("after a restart, %d alert rules (%v), want 2", len(rules), err)
	}
	zones, err := client.Call(ctx, c, api.ListZones, decl.None{})
	if err != nil || len(zones) != len(demo.Zones())-1 || slices.ContainsFunc(zones, func(z api.Zone) bool { return z.Name == "Branches/Lyon" }) {
		t.Errorf("after a restart, zones %+v (%v), want the demo's but Branches/Lyon", zones, err)
	}
}

// openAsAdmin opens the service of cfg (cheap password hashing, the tests' administrator) and
// serves it over real TLS; it returns a client signed in as the administrator, and stop, which
// closes the service (a test may open the same data directory again).
func openAsAdmin(t *testing.T, cfg app.Config) (c *client.Client, stop func()) {
	t.Helper()
	_, c, stop = serve(t, cfg)
	return c, stop
}

// answerWidgets runs every statement of d's widgets through c, and fails t for an error or,
// with nonEmpty, an empty answer.
func answerWidgets(t *testing.T, c *client.Client, d api.Dashboard, nonEmpty bool) {
	t.Helper()
	for _, w := range d.Widgets {
		for _, q := range w.Queries {
			n := 0
			for _, err := range client.Stream(context.Background(), c, api.Query, api.QueryArgs{Expr: q}) {
				if err != nil {
					t.Errorf("widget %q: query %q: %v", w.Title, q, err)
				}
				n++
			}
			if nonEmpty && n == 0 {
				t.Errorf("widget %q: query %q answered nothing", w.Title, q)
			}
		}
	}
}

// TestPerfDashboard checks that a service with the capture probe starts with the "Application
// performance" dashboard, whose statements answer; that a restart does not make it again, and
// that once deleted it stays deleted.
func TestPerfDashboard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	pcap := filepath.Join(dir, "empty.pcap") // a pcap header and no packet
	hdr := []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0}
	if err := os.WriteFile(pcap, hdr, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := app.Config{DataDir: dir, Inlet: inlet.Configuration{CaptureFile: pcap}}
	for start := range 3 {
		c, stop := openAsAdmin(t, cfg)
		list, err := client.Call(ctx, c, api.ListDashboards, decl.None{})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case start == 2 && len(list) != 0:
			t.Fatalf("start %d: dashboards %+v, want none (it was deleted)", start, list)
		case start < 2 && (len(list) != 1 || list[0].Title != "Application performance"):
			t.Fatalf("start %d: dashboards %+v, want one Application performance", start, list)
		}
		if start == 1 {
			if _, err := client.Call(ctx, c, api.DeleteDashboard, api.IDArgs{ID: list[0].ID}); err != nil {
				t.Fatal(err)
			}
		}
		if start == 0 {
			d, err := client.Call(ctx, c, api.GetDashboard, api.IDArgs{ID: list[0].ID})
			if err != nil || len(d.Widgets) != 4+7 { // the transport's, then the layers' views
				t.Fatalf("dashboard: %+v, %v", d, err)
			}
			for i, prefix := range []string{"HTTP: ", "HTTP: ", "HTTP: ", "DNS: ", "DNS: ", "TLS: ", "TLS: "} {
				if w := d.Widgets[4+i]; !strings.HasPrefix(w.Title, prefix) {
					t.Errorf("widget %d: %q, want the %sview", 4+i, w.Title, prefix)
				}
			}
			answerWidgets(t, c, d, true)
		}
		stop()
	}
}
