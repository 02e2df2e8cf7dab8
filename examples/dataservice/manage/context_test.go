package manage_test

import (
	"context"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

// TestZonesAndApplications: administrators set, list and delete zones and applications; the
// resolver takes each change at once; changes are audited (roles: app's TestContextRoles); bad input is INVALID-ARGUMENT
// naming the field, and leaves the previous state.
func TestZonesAndApplications(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var z map[string]any
	e.must("set-zone", map[string]any{"name": "HQ", "networks": []string{"10.0.0.0/8", "2001:db8::/32"}}, &z)
	if z["name"] != "HQ" || z["updated"] == nil || len(z["networks"].([]any)) != 2 {
		t.Fatalf("set-zone answered %v", z)
	}
	e.must("set-zone", map[string]any{"name": "Customers/ACME", "networks": []string{"192.0.2.0/24"}}, nil)
	e.must("set-application", map[string]any{"name": "acme-portal", "rules": []map[string]any{
		{"protocol": "tcp", "ports": "443", "client_zone": "Customers", "server_zone": "HQ"}}}, nil)

	var c netctx.Context
	e.resolver.Resolve(&netctx.Flow{Client: netip.MustParseAddr("192.0.2.9"), Server: netip.MustParseAddr("10.1.1.1"),
		Protocol: 6, ServerPort: 443}, &c)
	if c.Client.Zone != "Customers/ACME" || c.Server.Zone != "HQ" || c.Application != "acme-portal" {
		t.Fatalf("resolved %+v", c)
	}

	var zones []map[string]any
	e.must("list-zones", nil, &zones)
	if len(zones) != 2 || zones[0]["name"] != "Customers/ACME" || zones[1]["name"] != "HQ" {
		t.Fatalf("list-zones %v", zones)
	}
	var apps []map[string]any
	e.must("list-applications", nil, &apps)
	rule := apps[0]["rules"].([]any)[0].(map[string]any)
	if len(apps) != 1 || rule["ports"] != "443" || rule["client_zone"] != "Customers" || rule["networks"] == nil {
		t.Fatalf("list-applications %v", apps)
	}

	for _, tc := range []struct {
		fn    string
		args  map[string]any
		field string
		says  string
	}{
		{"set-zone", map[string]any{"name": "DMZ", "networks": []string{"10.0.0.0/8"}}, "networks", `in zones \"DMZ\" and \"HQ\"`},
		{"set-zone", map[string]any{"name": "DMZ", "networks": []string{"10.0.0.1/8"}}, "networks[0]", "host bits"},
		{"set-zone", map[string]any{"name": "DMZ", "networks": []string{"10.0.0.0/33"}}, "networks[0]", "not a CIDR"},
		{"set-zone", map[string]any{"name": "A//B", "networks": []string{}}, "name", "non-empty"},
		{"set-zone", map[string]any{"name": "<b>HQ</b>", "networks": []string{}}, "name", "markup"},
		{"set-zone", map[string]any{"name": "HQ/\u202egnp.exe", "networks": []string{}}, "name", "bidirectional"},
		{"set-zone", map[string]any{"name": "HQ\u0085", "networks": []string{}}, "name", "control"},
		{"set-application", map[string]any{"name": "a<b", "rules": []map[string]any{{"ports": "1"}}}, "name", "markup"},
		{"set-application", map[string]any{"name": "x", "rules": []map[string]any{{"ports": "9-1"}}}, "rules[0].ports", "never match"},
		{"set-application", map[string]any{"name": "x", "rules": []map[string]any{{"protocol": "icmp", "ports": "80"}}}, "rules", "never match"},
		{"set-application", map[string]any{"name": "x", "rules": []map[string]any{{"server_zone": "Nowhere"}}}, "rules", "never match"},
		{"set-application", map[string]any{"name": "x", "rules": []map[string]any{{"protocol": "tcpp"}}}, "rules[0].protocol", "protocol"},
		{"delete-zone", map[string]any{"name": "HQ"}, "name", "acme-portal"},
	} {
		r := e.call(tc.fn, tc.args)
		if r.status != 400 || r.msg["error"] != "INVALID-ARGUMENT" || r.msg["name"] != tc.field || !strings.Contains(r.raw, tc.says) {
			t.Errorf("%s(%v): %d %s, want INVALID-ARGUMENT naming %s and saying %q", tc.fn, tc.args, r.status, r.raw, tc.field, tc.says)
		}
	}
	var after []map[string]any
	e.must("list-zones", nil, &after)
	if len(after) != 2 {
		t.Errorf("refused changes changed the zones: %v", after)
	}

	if r := e.call("delete-zone", map[string]any{"name": "Nowhere"}); r.status != 404 {
		t.Errorf("deleting a missing zone: %d %s", r.status, r.raw)
	}
	e.must("delete-application", map[string]any{"name": "acme-portal"}, nil)
	e.must("delete-zone", map[string]any{"name": "HQ"}, nil)
	e.resolver.Resolve(&netctx.Flow{Server: netip.MustParseAddr("10.1.1.1")}, &c)
	if c.Server.Zone != netctx.Other {
		t.Errorf("after delete-zone the server is in %q", c.Server.Zone)
	}

	var events []map[string]any
	e.must("list-audit", map[string]any{"limit": 100}, &events)
	var actions []string
	for _, ev := range events {
		actions = append(actions, ev["action"].(string))
	}
	if got := strings.Join(actions, ","); got != "delete-zone,delete-application,set-application,set-zone,set-zone" {
		t.Errorf("audit trail %s", got)
	}
}

// TestContextPersists: zones and applications outlive the process, and LoadContext gives
// them to a new resolver.
func TestContextPersists(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	st, err := statedb.OpenSQLite(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetZone(ctx, state.Zone{Name: "HQ", Networks: []string{"10.0.0.0/8"}}, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = statedb.OpenSQLite(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := netctx.NewResolver()
	if err := manage.LoadContext(ctx, st, r.Set); err != nil {
		t.Fatal(err)
	}
	if got := r.Zones().Lookup(netip.MustParseAddr("10.2.3.4")); got != "HQ" {
		t.Errorf("after a restart 10.2.3.4 is in %q", got)
	}
}

// TestSNMPSecretsHidden: get-config and the audit trail never show an SNMP community or
// password; sending back what get-config answered keeps them.
func TestSNMPSecretsHidden(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	snmp := map[string]any{"interval": "10m", "exporters": []map[string]any{
		{"address": "192.0.2.1", "version": "2c", "community": "very-secret-1"},
		{"address": "192.0.2.2", "version": "3", "user": "u", "auth_protocol": "sha", "auth_password": "very-secret-2",
			"priv_protocol": "aes", "priv_password": "very-secret-3"}}}
	var cfg map[string]json.RawMessage
	e.must("set-config", map[string]any{"values": map[string]any{"snmp": snmp}}, &cfg)
	e.must("get-config", nil, &cfg)
	var audit json.RawMessage
	e.must("list-audit", map[string]any{"limit": 10}, &audit)
	for what, text := range map[string]string{"get-config": string(cfg["snmp"]), "list-audit": string(audit)} {
		if strings.Contains(text, "very-secret") || !strings.Contains(text, manage.Hidden) {
			t.Errorf("%s shows %s", what, text)
		}
	}
	// Sent back as answered, with the interval changed: the secrets stay.
	var back map[string]any
	if err := json.Unmarshal(cfg["snmp"], &back); err != nil {
		t.Fatal(err)
	}
	back["interval"] = "15m"
	e.must("set-config", map[string]any{"values": map[string]any{"snmp": back}}, nil)
	targets, interval, err := manage.ParseSNMP(e.settings.Config().SNMP)
	if err != nil || interval.Minutes() != 15 || targets[0].Community != "very-secret-1" || targets[1].PrivPassword != "very-secret-3" {
		t.Fatalf("after sending back: %v %v %+v", err, interval, targets)
	}

	for _, bad := range []map[string]any{
		{"exporters": []map[string]any{{"address": "192.0.2.9", "version": "2c", "community": manage.Hidden}}}, // nothing to keep
		{"exporters": []map[string]any{{"address": "nope", "version": "2c", "community": "c"}}},
		{"exporters": []map[string]any{{"address": "192.0.2.9", "version": "1", "community": "c"}}},
		{"interval": "1s", "exporters": []map[string]any{}},
		{"exporters": []map[string]any{}, "colour": "red"},
	} {
		r := e.call("set-config", map[string]any{"values": map[string]any{"snmp": bad}})
		if r.status != 400 || r.msg["name"] != "snmp" {
			t.Errorf("snmp %v: %d %s", bad, r.status, r.raw)
		}
	}
	names := []map[string]any{{"address": "192.0.2.1", "name": "edge-1", "interfaces": []map[string]any{{"index": 3, "name": "ge-0/0/3", "alias": "uplink", "speed": 10000}}}}
	e.must("set-config", map[string]any{"values": map[string]any{"exporter_names": names}}, nil)
	ds, err := manage.ParseExporterNames(e.settings.Config().ExporterNames)
	if err != nil || len(ds) != 1 || ds[0].Interfaces[3].Alias != "uplink" {
		t.Fatalf("exporter_names: %v %+v", err, ds)
	}
	if r := e.call("set-config", map[string]any{"values": map[string]any{"exporter_names": []map[string]any{{"address": "192.0.2.1", "interfaces": []map[string]any{{"index": 0}}}}}}); r.status != 400 {
		t.Errorf("an interface of index 0: %d %s", r.status, r.raw)
	}
}
