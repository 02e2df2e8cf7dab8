package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestMitigation follows an administrator's story through a node with -bgp and gobgpd as the
// router: zones and mitigation_zones, blackhole_nexthop set through set-config, a rule with a
// blackhole channel at interval 10 s created through create-alert-rule, and a flood's records
// ingested. The router receives the /32 with 65535:666 (asked with its gobgp CLI), alert-history
// and list-audit show the announcement; when the flood leaves the rule's window the alert
// resolves and the route is withdrawn at the router. A flood to an address outside
// mitigation_zones is refused, never announced.
func TestMitigation(t *testing.T) {
	t.Parallel()
	const router = "127.0.0.11"
	port := testenv.FreePort(t)
	// The hold-down at a second (5 min by default), so that the withdrawal follows the resolve.
	s, _ := startWith(t, app.Config{Alerts: alerts.Configuration{MitigationHold: time.Second},
		BGP: bgp.Config{Listen: fmt.Sprintf("127.0.0.1:%d", port), AS: 64500,
			Peers: []netip.Prefix{netip.MustParsePrefix(router + "/32")}}})
	g := testenv.StartGoBGPD(t, router, 64600, port, 64500)
	testutil.Until(t, 30*time.Second, "gobgpd's session", g.Established)
	rib := g.Monitor("ipv4-flowspec") // every route gobgpd gains or loses (unicast too)

	ctx := context.Background()
	admin := s.http(t, client.WithAPIKey(s.key))
	for _, z := range []api.SetZoneArgs{{Name: "Customers/ACME", Networks: []string{"198.51.100.0/24"}},
		{Name: "Transit", Networks: []string{"203.0.113.0/24"}}} {
		if _, err := client.Call(ctx, admin, api.SetZone, z); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.Call(ctx, admin, api.SetConfig, api.SetConfigArgs{Values: map[string]json.RawMessage{
		"mitigation_zones": json.RawMessage(`["Customers"]`), "blackhole_nexthop": json.RawMessage(`["192.0.2.66"]`)}}); err != nil {
		t.Fatal(err)
	}
	r, err := client.Call(ctx, admin, api.CreateAlertRule, api.CreateAlertRuleArgs{Name: "flood", Interval: "10s",
		Query:  "traffic BY server.ip HAVING traffic > 50000 SINCE @now-60",
		Notify: []api.AlertChannel{{BGP: "blackhole"}}})
	if err != nil {
		t.Fatal(err)
	}

	// Stamped 45 s ago, the flood leaves the rule's 60 s window 15 s from now: it resolves.
	at := time.Now().Unix() - 45
	var flood []json.RawMessage
	for _, server := range []string{"203.0.113.9", "198.51.100.7"} { // Transit, then a customer
		b, _ := json.Marshal(record(at, "192.0.2.99", server, 53, 0, 100000))
		flood = append(flood, b)
	}
	if _, err := client.Call(ctx, admin, api.Ingest, api.IngestArgs{Records: flood}); err != nil {
		t.Fatal(err)
	}

	testutil.Until(t, 30*time.Second, "the blackhole route at gobgpd", func() error {
		out, err := g.Query("global", "rib", "-a", "ipv4", "198.51.100.7/32") // gobgp names 65535:666 "blackhole"
		if err != nil {
			return err
		}
		if !strings.Contains(out, "198.51.100.7/32") || !strings.Contains(out, "192.0.2.66") || !strings.Contains(out, "{Communities: blackhole") {
			return fmt.Errorf("gobgpd's RIB:\n%s", out)
		}
		return nil
	})
	if out := g.CLI("neighbor", "127.0.0.1", "adj-in", "-a", "ipv4"); !strings.Contains(out, "198.51.100.7/32") {
		t.Errorf("gobgpd's Adj-RIB-In from the service:\n%s", out)
	}
	history := func() []string {
		es, err := client.Call(ctx, admin, api.AlertHistory, api.AlertHistoryArgs{Rule: r.ID})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			if m := e.Mitigation; m != nil {
				out = append(out, strings.TrimSpace(fmt.Sprintf("%s %s %s %s %s", e.State, m.BGP, m.Prefix, m.NextHop, m.Reason)))
			}
		}
		slices.Sort(out) // one evaluation's events in any order: announced, refused, withdrawn
		return out
	}
	announced := []string{"announced blackhole 198.51.100.7/32 192.0.2.66",
		"refused blackhole 203.0.113.9/32  the address is outside mitigation_zones (its zone: Transit)"}
	// The events are stored once the speaker took the route: a moment after gobgpd may have it.
	testutil.Until(t, 10*time.Second, "the announcement in alert-history", func() error {
		if got := history(); !slices.Equal(got, announced) {
			return fmt.Errorf("alert-history:\n%s", strings.Join(got, "\n"))
		}
		return nil
	})
	audit(t, admin, "bgp-announce")

	testutil.Until(t, 60*time.Second, "the route withdrawn at gobgpd", func() error {
		out, err := g.Query("global", "rib", "-a", "ipv4")
		if err == nil && strings.Contains(out, "198.51.100.7") {
			err = fmt.Errorf("gobgpd's RIB:\n%s", out)
		}
		return err
	})
	testutil.Until(t, 10*time.Second, "the withdrawal in alert-history", func() error {
		if got, want := history(), slices.Concat(announced, []string{"withdrawn blackhole 198.51.100.7/32 192.0.2.66 resolved"}); !slices.Equal(got, want) {
			return fmt.Errorf("alert-history:\n%s", strings.Join(got, "\n"))
		}
		return nil
	})
	audit(t, admin, "bgp-withdraw")
	var seen []string
	for len(rib) > 0 {
		seen = append(seen, (<-rib).Text)
	}
	if all := strings.Join(seen, "\n"); !strings.Contains(all, "198.51.100.7/32") || strings.Contains(all, "203.0.113.9") {
		t.Errorf("gobgpd's RIB gained and lost (a route to 198.51.100.7, none to 203.0.113.9 outside mitigation_zones):\n%s", all)
	}
}

// audit waits until list-audit has an event action about 198.51.100.7/32 by the rule's
// owner (written after the alert's history).
func audit(t *testing.T, admin *client.Client, action string) {
	t.Helper()
	testutil.Until(t, 10*time.Second, action+" in list-audit", func() error {
		es, err := client.Call(context.Background(), admin, api.ListAudit, api.ListAuditArgs{})
		if err != nil {
			t.Fatal(err)
		}
		var seen []string
		for _, e := range es {
			if e.Action == action && e.User == "admin" && strings.Contains(string(e.Details), `"prefix":"198.51.100.7/32"`) {
				return nil
			}
			seen = append(seen, e.Action+" "+string(e.Details))
		}
		return fmt.Errorf("list-audit:\n%s", strings.Join(seen, "\n"))
	})
}
