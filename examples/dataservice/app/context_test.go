package app_test

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestContextRoles: only administrators list and change zones and applications.
func TestContextRoles(t *testing.T) {
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
	_, err := app.Open(context.Background(), app.Config{DataDir: t.TempDir(), GeoIPASN: filepath.Join(t.TempDir(), "missing.mmdb")})
	if err == nil || !strings.Contains(err.Error(), "-geoip-asn") {
		t.Fatalf("a missing file: %v", err)
	}
}

// TestContextNodesAgree: a zone set on one node is in the other's resolver at once.
func TestContextNodesAgree(t *testing.T) {
	a, b, _ := twoNodes(t)
	ctx := context.Background()
	if _, err := client.Call(ctx, a.http(t, client.WithAPIKey(a.key)), api.SetZone,
		api.SetZoneArgs{Name: "Customers/ACME", Networks: []string{"192.0.2.0/24"}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the other node's zone", func() error {
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
	eventually(t, "the first poll", func() error {
		if st := status(); st.Name != testenv.SNMPSysName || st.Interfaces == 0 || st.LastAnswer == nil {
			return fmt.Errorf("snmp status %+v", st)
		}
		return nil
	})
	agent.Stop()
	setSNMP("10m") // a change polls at once
	eventually(t, "the failed poll", func() error {
		if st := status(); st.Error == "" || st.Name != testenv.SNMPSysName {
			return fmt.Errorf("snmp status %+v", st)
		}
		return nil
	})
}
