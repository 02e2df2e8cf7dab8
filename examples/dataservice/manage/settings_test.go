package manage_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
)

func openStore(t *testing.T, dir string) *statedb.SQLite {
	t.Helper()
	st, err := statedb.OpenSQLite(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func values(t *testing.T, s *manage.Settings) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range s.Values() {
		var str string
		if err := json.Unmarshal(v, &str); err != nil {
			str = string(v) // a number
		}
		out[k] = str
	}
	return out
}

func TestSettingsSurviveRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	st := openStore(t, dir)
	s, err := manage.NewSettings(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set(ctx, map[string]json.RawMessage{"default_period": json.RawMessage(`"90s"`), "retention": json.RawMessage(`"6w"`)}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	s2, err := manage.NewSettings(ctx, openStore(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if got := values(t, s2); got["default_period"] != "90s" || got["retention"] != "6w" || got["session_max"] != "24h" {
		t.Fatalf("after restart %v", got)
	}
	if s2.DefaultPeriod() != 90*time.Second || s2.Retention() != 6*wire.Week || s2.SessionIdle() != time.Hour || s2.SessionMax() != 24*time.Hour {
		t.Fatalf("typed after restart %+v", s2.Config())
	}
}

func TestSettingsDefaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name string
		opts []manage.SettingsOption
		ok   bool
		want map[string]string
	}{
		{"built in", nil, true, map[string]string{"default_period": "1h", "retention": "30d", "session_idle": "1h", "session_max": "24h", "rate_limit": "200", "audit_retention": "365d", "snmp": `{"interval":"5m","exporters":[]}`, "exporter_names": "[]", "mitigation_zones": "[]", "blackhole_nexthop": `["192.0.2.1","100::1"]`}},
		{"from flags", []manage.SettingsOption{manage.WithDefault("session_idle", "2h"), manage.WithDefault("session_max", "3d")}, true,
			map[string]string{"default_period": "1h", "retention": "30d", "session_idle": "2h", "session_max": "3d", "rate_limit": "200", "audit_retention": "365d", "snmp": `{"interval":"5m","exporters":[]}`, "exporter_names": "[]", "mitigation_zones": "[]", "blackhole_nexthop": `["192.0.2.1","100::1"]`}},
		{"unknown key", []manage.SettingsOption{manage.WithDefault("colour", "red")}, false, nil},
		{"bad value", []manage.SettingsOption{manage.WithDefault("retention", "30 days")}, false, nil},
		{"out of bounds", []manage.SettingsOption{manage.WithDefault("session_max", "1s")}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := manage.NewSettings(ctx, openStore(t, t.TempDir()), tt.opts...)
			if (err == nil) != tt.ok {
				t.Fatalf("NewSettings: %v, want ok %v", err, tt.ok)
			}
			if err != nil {
				return
			}
			if got := values(t, s); len(got) != len(tt.want) || got["session_idle"] != tt.want["session_idle"] ||
				got["session_max"] != tt.want["session_max"] || got["retention"] != tt.want["retention"] {
				t.Fatalf("values %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSettingsIgnoreBadStoredValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t, t.TempDir())
	// As if edited by hand, or written by a later version of the program.
	if _, err := st.UpdateConfig(ctx, func(v map[string]string) error {
		v["retention"], v["session_max"], v["future_key"], v["default_period"] = `"forever"`, `12`, `"x"`, `"2h"`
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s, err := manage.NewSettings(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	want := manage.Config{DefaultPeriod: 2 * time.Hour, Retention: 30 * wire.Day, SessionIdle: time.Hour, SessionMax: 24 * time.Hour, RateLimit: 200, AuditRetention: 365 * wire.Day}
	if got := s.Config(); got != want {
		t.Fatalf("Config %+v, want %+v", got, want)
	}
	if got := values(t, s); got["retention"] != "30d" || len(got) != len(manage.Keys()) {
		t.Fatalf("values %v", got)
	}
	// Setting another key keeps the key this program does not know.
	if _, err := s.Set(ctx, map[string]json.RawMessage{"retention": json.RawMessage(`"1d"`)}); err != nil {
		t.Fatal(err)
	}
	stored, err := st.Config(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stored["future_key"] != `"x"` || stored["retention"] != `"1d"` {
		t.Fatalf("stored %v", stored)
	}
}

func TestSettingsWatchAndReload(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t, t.TempDir())
	a, err := manage.NewSettings(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	b, err := manage.NewSettings(ctx, st) // another API node sharing the store
	if err != nil {
		t.Fatal(err)
	}
	var seen []time.Duration
	b.Watch(func(c manage.Config) { seen = append(seen, c.Retention) })

	if _, err := a.Set(ctx, map[string]json.RawMessage{"retention": json.RawMessage(`"3d"`)}); err != nil {
		t.Fatal(err)
	}
	if b.Retention() != 30*wire.Day {
		t.Fatalf("b saw the change before Reload: %v", b.Retention())
	}
	for range 2 { // the second Reload changes nothing and tells nobody
		if err := b.Reload(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if want := []time.Duration{30 * wire.Day, 3 * wire.Day}; len(seen) != 2 || seen[0] != want[0] || seen[1] != want[1] {
		t.Fatalf("watcher saw %v, want %v", seen, want)
	}

	// A refused Set tells nobody and changes nothing.
	_, err = b.Set(ctx, map[string]json.RawMessage{"retention": json.RawMessage(`"1d"`), "session_idle": json.RawMessage(`"2d"`)})
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code() != apierr.InvalidArgument.Code() || ae.Attr("name") != "session_idle" {
		t.Fatalf("Set: %v, want INVALID-ARGUMENT naming session_idle", err)
	}
	if len(seen) != 2 || b.Retention() != 3*wire.Day {
		t.Fatalf("after a refused Set: seen %v, retention %v", seen, b.Retention())
	}
}

// TestBlackholeNexthopNotOwn checks that blackhole_nexthop refuses the host's own addresses,
// which routers refuse as a next hop.
func TestBlackholeNexthopNotOwn(t *testing.T) {
	t.Parallel()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range addrs {
		p, err := netip.ParsePrefix(x.String())
		if err != nil {
			continue
		}
		if _, err := manage.ParseBlackholeNexthop(`["` + p.Addr().String() + `"]`); err == nil {
			t.Errorf("the host's %s accepted as a next hop", p.Addr())
		}
	}
	if hops, err := manage.ParseBlackholeNexthop(""); err != nil || len(hops) != 2 {
		t.Fatalf("the default: %v, %v", hops, err)
	}
}
