package alerts

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/fnapi/fnapi/registry"
)

type nopAnnouncer struct{}

func (nopAnnouncer) Announce(context.Context, bgp.Mitigation) error { return nil }
func (nopAnnouncer) Withdraw(context.Context, bgp.Mitigation) error { return nil }

func checkService(t *testing.T, a Announcer) *Service {
	t.Helper()
	ctx := context.Background()
	db, err := statedb.OpenSQLite(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st, err := statedb.OpenAlerts(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(st, Options{Announcer: a, Query: func(context.Context, string, time.Time) ([]pvql.Result, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func as(user string, role authapi.Role) context.Context {
	return registry.WithCall(context.Background(), &registry.Call{Identity: &auth.Identity{User: user, Role: role, Admin: role == authapi.RoleAdmin}})
}

// TestBGPChannelChecked checks who may add a bgp channel and to what rule: administrators
// only, with BGP on, to a rule grouping by server.ip or client.ip; and that a rule holding
// one is changed by administrators only (its owner may still silence or delete it).
func TestBGPChannelChecked(t *testing.T) {
	t.Parallel()
	admin, bob := as("admin", authapi.RoleAdmin), as("bob", authapi.RoleUser)
	on, off := checkService(t, nopAnnouncer{}), checkService(t, nil)
	rule := func(query string, cs ...api.AlertChannel) api.CreateAlertRuleArgs {
		return api.CreateAlertRuleArgs{Name: "flood", Query: query, Notify: cs}
	}
	bh := api.AlertChannel{BGP: Blackhole}
	const byServer = "traffic BY server.ip HAVING traffic > 1e9"
	for _, c := range []struct {
		name string
		s    *Service
		ctx  context.Context
		in   api.CreateAlertRuleArgs
		code error
		want string
	}{
		{"BGP off", off, admin, rule(byServer, bh), apierr.InvalidArgument, "BGP is off"},
		{"a user", on, bob, rule(byServer, bh), apierr.PermissionDenied, ""},
		{"no address", on, admin, rule("traffic BY protocol HAVING traffic > 1e9", bh), apierr.InvalidArgument, "server.ip or client.ip"},
		{"unknown kind", on, admin, rule(byServer, api.AlertChannel{BGP: "drop"}), apierr.InvalidArgument, `"blackhole" or "flowspec"`},
		{"twice", on, admin, rule(byServer, bh, bh), apierr.InvalidArgument, "listed twice"},
		{"with a webhook", on, admin, rule(byServer, api.AlertChannel{BGP: Flowspec, Email: "a@example.com"}), apierr.InvalidArgument, "either"},
	} {
		_, err := c.s.createRule(c.ctx, c.in)
		if !errors.Is(err, c.code) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %s with %q", c.name, err, c.code, c.want)
		}
	}
	r, err := on.createRule(admin, rule(byServer, bh, api.AlertChannel{BGP: Flowspec}))
	if err != nil || len(r.Notify) != 2 || r.Notify[0].BGP != Blackhole {
		t.Fatalf("created %+v, %v", r, err)
	}
	// bob's own rule, given a blackhole by an administrator: bob may no longer change it.
	br, err := on.createRule(bob, rule(byServer))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := on.updateRule(admin, api.UpdateAlertRuleArgs{ID: br.ID, Notify: []api.AlertChannel{bh}}); err != nil {
		t.Fatal(err)
	}
	query := "traffic BY server.ip HAVING traffic > 1"
	if _, err := on.updateRule(bob, api.UpdateAlertRuleArgs{ID: br.ID, Query: &query}); !errors.Is(err, apierr.PermissionDenied) {
		t.Fatalf("bob changed his rule with a blackhole: %v", err)
	}
	if _, err := on.deleteRule(bob, api.IDArgs{ID: br.ID}); err != nil {
		t.Fatalf("bob may delete his rule: %v", err)
	}
}

// TestFlowspecTarget checks where a flowspec rule's address, protocol and port come from: the
// group's keys, else the WHERE.
func TestFlowspecTarget(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ query, group, want string }{
		{"traffic BY server.ip, protocol, server.port HAVING traffic > 1", `["198.51.100.7","udp",53]`, "198.51.100.7/32 17 53"},
		{"traffic WHERE protocol = udp AND server.port = 123 BY server.ip HAVING traffic > 1", `["198.51.100.7"]`, "198.51.100.7/32 17 123"},
		{"traffic WHERE protocol = tcp BY client.ip, client.port HAVING traffic > 1", `["2001:db8::1",443]`, "2001:db8::1/128 6 443"},
		{"traffic WHERE server.port = 53 BY client.ip HAVING traffic > 1", `["192.0.2.7"]`, "192.0.2.7/32 0 0"},
		{"traffic WHERE protocol = 47 BY server.ip, client.ip HAVING traffic > 1", `["192.0.2.7","192.0.2.8"]`, "192.0.2.7/32 47 0"},
	} {
		tg, err := targetOf(c.query)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		m, err := tg.mitigation(Flowspec, c.group)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if got := m.Prefix.String() + " " + strconv.Itoa(int(m.Protocol)) + " " + strconv.Itoa(int(m.Port)); got != c.want || !m.Flowspec {
			t.Errorf("%s: %s, want %s", c.query, got, c.want)
		}
	}
	tg, _ := targetOf("traffic BY server.ip HAVING traffic > 1")
	if _, err := tg.mitigation(Blackhole, `[null]`); err == nil {
		t.Error("a group without an address gave a route")
	}
}
