package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestContextRoles: only administrators list and change zones and applications.
func TestContextRoles(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := context.Background()
	admin := s.http(t, client.WithAPIKey(s.key))
	if _, err := client.Call(ctx, admin, authapi.CreateUser, authapi.CreateUserArgs{User: "bob", Password: "bob's password"}); err != nil {
		t.Fatal(err)
	}
	tok, err := client.Call(ctx, s.http(t), authapi.Login, authapi.LoginArgs{User: "bob", Password: "bob's password"})
	if err != nil {
		t.Fatal(err)
	}
	bob := s.http(t, client.WithSession(tok))
	for fn, args := range map[string]any{
		"list-zones": nil, "set-zone": map[string]any{"name": "Z", "networks": []string{}}, "delete-zone": map[string]any{"name": "Z"},
		"list-applications": nil, "set-application": map[string]any{"name": "a", "rules": []map[string]any{{"ports": "1"}}},
		"delete-application": map[string]any{"name": "a"},
	} {
		if err := bob.Call(ctx, fn, args, nil); code(err) != apierr.PermissionDenied.Code() {
			t.Errorf("a user calls %s: %v, want PERMISSION-DENIED", fn, err)
		}
	}
	z, err := client.Call(ctx, admin, api.SetZone, api.SetZoneArgs{Name: "HQ", Networks: []string{"10.0.0.0/8"}})
	if err != nil || z.Name != "HQ" {
		t.Fatalf("set-zone: %+v, %v", z, err)
	}
	if got := s.app.Resolver().Zones().Lookup(netip.MustParseAddr("10.1.2.3")); got != "HQ" {
		t.Errorf("the service's resolver has 10.1.2.3 in %q", got)
	}
}

// TestGeoIPFlags: a -geoip-asn file that is missing or of another layout stops the start
// with an error naming the flag.
func TestGeoIPFlags(t *testing.T) {
	t.Parallel()
	_, err := app.Open(context.Background(), app.Config{DataDir: t.TempDir(), Inlet: inlet.Configuration{GeoIPASN: filepath.Join(t.TempDir(), "missing.mmdb")}})
	if err == nil || !strings.Contains(err.Error(), "-geoip-asn") {
		t.Fatalf("a missing file: %v", err)
	}
}

// TestContextNodesAgree: a zone set on one node is in the other's resolver at once.
func TestContextNodesAgree(t *testing.T) {
	t.Parallel()
	a, b, _ := twoNodes(t)
	ctx := context.Background()
	if _, err := client.Call(ctx, a.http(t, client.WithAPIKey(a.key)), api.SetZone,
		api.SetZoneArgs{Name: "Customers/ACME", Networks: []string{"192.0.2.0/24"}}); err != nil {
		t.Fatal(err)
	}
	testutil.Until(t, testutil.Wait, "the other node's zone", func() error {
		if got := b.app.Resolver().Zones().Lookup(netip.MustParseAddr("192.0.2.7")); got != "Customers/ACME" {
			return fmt.Errorf("192.0.2.7 is in %q", got)
		}
		return nil
	})
}

// TestSNMPCollectorStatus: an exporter the snmp key lists is polled (Debian's snmpd) and
// collector-status shows its name; once snmpd stops, the name stays and the status says the
// poll failed.
func TestSNMPCollectorStatus(t *testing.T) {
	t.Parallel()
	agent := testenv.StartSNMPD(t)
	s := start(t)
	ctx := context.Background()
	admin := s.http(t, client.WithAPIKey(s.key))
	setSNMP := func(interval string) {
		t.Helper()
		snmp := map[string]any{"interval": interval, "exporters": []map[string]any{
			{"address": "127.0.0.1", "port": agent.Port, "version": "3", "user": testenv.SNMPUser,
				"auth_protocol": "sha", "auth_password": testenv.SNMPAuthPassword,
				"priv_protocol": "aes", "priv_password": testenv.SNMPPrivPassword}}}
		if err := admin.Call(ctx, "set-config", map[string]any{"values": map[string]any{"snmp": snmp}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	status := func() api.SNMPStatus {
		t.Helper()
		st, err := client.Call(ctx, admin, api.CollectorStatus, decl.None{})
		if err != nil {
			t.Fatal(err)
		}
		if len(st.SNMP) != 1 {
			return api.SNMPStatus{}
		}
		return st.SNMP[0]
	}
	setSNMP("5m")
	testutil.Until(t, testutil.Wait, "the first poll", func() error {
		if st := status(); st.Name != testenv.SNMPSysName || st.Interfaces == 0 || st.LastAnswer == nil {
			return fmt.Errorf("snmp status %+v", st)
		}
		return nil
	})
	agent.Stop()
	setSNMP("10m") // a change polls at once
	testutil.Until(t, testutil.Wait, "the failed poll", func() error {
		if st := status(); st.Error == "" || st.Name != testenv.SNMPSysName {
			return fmt.Errorf("snmp status %+v", st)
		}
		return nil
	})
}

// TestSNMPHostileNames: a device answering names that are not UTF-8, 30 KB long, with line
// breaks, C1 controls and U+202E costs no record: the batch of its exporter's records is
// stored, and the names they take are clean and bounded (255 bytes, aliases 1 KiB).
func TestSNMPHostileNames(t *testing.T) {
	t.Parallel()
	agent := testenv.StartSNMPAgent(t, "127.0.0.1", "public", testenv.SNMPHostileValues(), false)
	s := start(t)
	ctx := context.Background()
	admin := s.http(t, client.WithAPIKey(s.key))
	snmp := map[string]any{"exporters": []map[string]any{{"address": "127.0.0.1", "port": agent.Port, "version": "2c", "community": "public"}}}
	if err := admin.Call(ctx, "set-config", map[string]any{"values": map[string]any{"snmp": snmp}}, nil); err != nil {
		t.Fatal(err)
	}
	const sysName = "edge\uFFFD\uFFFD-1  State: resolved"
	testutil.Until(t, testutil.Wait, "the poll", func() error {
		st, err := client.Call(ctx, admin, api.CollectorStatus, decl.None{})
		if err != nil {
			return err
		}
		if len(st.SNMP) != 1 || st.SNMP[0].LastAnswer == nil {
			return fmt.Errorf("snmp status %+v", st.SNMP)
		}
		if st.SNMP[0].Name != sysName || st.SNMP[0].Interfaces != 2 {
			t.Errorf("collector-status names the exporter %.300q with %d interfaces, want %q with 2", st.SNMP[0].Name, st.SNMP[0].Interfaces, sysName)
		}
		return nil
	})
	t0 := time.Now().Add(-time.Hour).Unix() / 60 * 60
	var raw []json.RawMessage
	for i := range 100 {
		r := record(t0+int64(i%60), "10.0.0.1", "10.0.0.2", 443, 1, 1)
		r["exporter"], r["in_if"], r["out_if"] = "127.0.0.1", 1, 2
		b, _ := json.Marshal(r)
		raw = append(raw, b)
	}
	if _, err := client.Call(ctx, admin, api.Ingest, api.IngestArgs{Records: raw}); err != nil {
		t.Fatalf("the batch of the hostile exporter's records: %v", err)
	}
	expr := fmt.Sprintf("records BY exporter.name, in_if, out_if SINCE %d UNTIL %d", t0, t0+60)
	var rows []api.Row
	for chunk, err := range client.Stream(ctx, admin, api.Query, api.QueryArgs{Expr: expr}) {
		if err != nil {
			t.Fatal(err)
		}
		rows = chunk.Result[0].Data
	}
	if len(rows) != 1 || len(rows[0].Keys) != 3 || rows[0].Values[0] != 100 {
		t.Fatalf("%s: %+v, want the 100 records in one group", expr, rows)
	}
	b, _ := json.Marshal(rows[0].Keys)
	want, _ := json.Marshal([]any{sysName,
		map[string]any{"index": 1, "name": strings.Repeat("é", 127), "alias": strings.TrimSpace(strings.Repeat("uplink  ", 128))},
		map[string]any{"index": 2, "name": "ge-0/0/2gnp.exe", "alias": "to core\uFFFD"}})
	if string(b) != string(want) {
		t.Errorf("%s:\n got %.600s\nwant %.600s", expr, b, want)
	}
}

// TestContextAtIngest: records ingested take the zones and the operator's applications of the
// moment they arrive, and keep them after a zone changes; an application the record names
// (other than its port's built-in one) stays; list-fields lists the context keys at 1.3, not at
// 1.2.
func TestContextAtIngest(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := context.Background()
	admin := s.http(t, client.WithAPIKey(s.key))
	for _, z := range []api.SetZoneArgs{{Name: "HQ", Networks: []string{"10.0.0.0/8"}},
		{Name: "Customers/ACME", Networks: []string{"192.0.2.0/24"}}, {Name: "Customers/Beta", Networks: []string{"198.51.100.0/24"}}} {
		if _, err := client.Call(ctx, admin, api.SetZone, z); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.Call(ctx, admin, api.SetApplication, api.SetApplicationArgs{Name: "intranet",
		Rules: []api.ApplicationRule{{Protocol: "tcp", Ports: "443", ServerZone: "HQ"}}}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Add(-time.Hour).Unix() / 60 * 60
	named := record(t0+3, "192.0.2.9", "10.9.9.9", 443, 1, 4)
	named["application"] = "backup"
	ingest := func(recs ...map[string]any) {
		t.Helper()
		var raw []json.RawMessage
		for _, r := range recs {
			b, _ := json.Marshal(r)
			raw = append(raw, b)
		}
		if _, err := client.Call(ctx, admin, api.Ingest, api.IngestArgs{Records: raw}); err != nil {
			t.Fatal(err)
		}
	}
	ingest(record(t0, "192.0.2.7", "10.1.1.1", 443, 10, 100), record(t0+1, "198.51.100.7", "93.184.216.34", 443, 20, 200),
		record(t0+2, "203.0.113.5", "10.1.1.2", 22, 30, 300), named)
	// A zone changed later changes the records after, not those before.
	if _, err := client.Call(ctx, admin, api.SetZone, api.SetZoneArgs{Name: "HQ", Networks: []string{"10.1.0.0/16"}}); err != nil {
		t.Fatal(err)
	}
	ingest(record(t0+4, "192.0.2.7", "10.2.2.2", 443, 40, 400))
	period := fmt.Sprintf(" SINCE %d UNTIL %d", t0, t0+60)
	for _, tt := range []struct{ expr, want string }{
		{"records BY client.zone, server.zone, application", `[[[Customers/ACME HQ backup] [1]] [[Customers/ACME HQ intranet] [1]] ` +
			`[[Customers/ACME other https] [1]] [[Customers/Beta other https] [1]] [[other HQ ssh] [1]]]`},
		{`traffic WHERE client.zone IN "Customers/"`, `[[[] [775]]]`},
		{`traffic WHERE client.zone IN "Customers"`, `[[[] [0]]]`},
		{"records BY server.asn, server.country, in_if, exporter.name", `[[[<nil> <nil> <nil> <nil>] [5]]]`},
	} {
		var got [][2][]any
		for chunk, err := range client.Stream(ctx, admin, api.Query, api.QueryArgs{Expr: tt.expr + period}) {
			if err != nil {
				t.Fatalf("%s: %v", tt.expr, err)
			}
			got = nil
			for _, row := range chunk.Result[0].Data {
				got = append(got, [2][]any{row.Keys, toAny(row.Values)})
			}
		}
		if s := fmt.Sprint(sortRows(got)); s != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.expr, s, tt.want)
		}
	}
	has := func(v string, name string) bool {
		var fields []struct{ Name string }
		if err := s.http(t, client.WithAPIKey(s.key), client.WithVersion(v)).Call(ctx, "list-fields", nil, &fields); err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(fields, func(f struct{ Name string }) bool { return f.Name == name })
	}
	for _, k := range []string{"client.zone", "server.asn", "in_if", "exporter.name"} {
		if has("1.2", k) || !has("1.3", k) {
			t.Errorf("list-fields lists %s at 1.2 (%v) or not at 1.3 (%v)", k, has("1.2", k), has("1.3", k))
		}
	}
}

func toAny(vs []float64) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// sortRows orders rows by their text, for answers whose order ties.
func sortRows(rows [][2][]any) [][2][]any {
	slices.SortStableFunc(rows, func(a, b [2][]any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return rows
}
