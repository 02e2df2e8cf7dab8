package manage_test

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
)

// snmpDefault is the snmp key's default.
var snmpDefault = map[string]any{"interval": "5m", "exporters": []any{}}

var defaults = map[string]any{"default_period": "1h", "retention": "30d", "session_idle": "1h", "session_max": "24h", "rate_limit": 200.0, "audit_retention": "365d", "snmp": snmpDefault, "exporter_names": []any{}, "mitigation_zones": []any{}, "blackhole_nexthop": []any{"192.0.2.1", "100::1"}}

func TestConfigFunctions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var mu sync.Mutex
	var seen []manage.Config
	e.settings.Watch(func(c manage.Config) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, c)
	})

	var cfg map[string]any
	e.must("get-config", nil, &cfg)
	if !reflect.DeepEqual(cfg, defaults) {
		t.Fatalf("get-config %v, want the defaults %v", cfg, defaults)
	}

	steps := []struct {
		name   string
		values map[string]any
		want   map[string]any
		config manage.Config
	}{
		{"two keys, as written", map[string]any{"retention": "2w", "default_period": "90s"},
			map[string]any{"default_period": "90s", "retention": "2w", "session_idle": "1h", "session_max": "24h", "rate_limit": 200.0, "audit_retention": "365d", "snmp": snmpDefault, "exporter_names": []any{}, "mitigation_zones": []any{}, "blackhole_nexthop": []any{"192.0.2.1", "100::1"}},
			manage.Config{DefaultPeriod: 90 * time.Second, Retention: 14 * wire.Day, SessionIdle: time.Hour, SessionMax: 24 * time.Hour, RateLimit: 200, AuditRetention: 365 * wire.Day}},
		{"sessions together", map[string]any{"session_idle": "48h", "session_max": "7d", "rate_limit": 200.0, "audit_retention": "365d"},
			map[string]any{"default_period": "90s", "retention": "2w", "session_idle": "48h", "session_max": "7d", "rate_limit": 200.0, "audit_retention": "365d", "snmp": snmpDefault, "exporter_names": []any{}, "mitigation_zones": []any{}, "blackhole_nexthop": []any{"192.0.2.1", "100::1"}},
			manage.Config{DefaultPeriod: 90 * time.Second, Retention: 14 * wire.Day, SessionIdle: 48 * time.Hour, SessionMax: 7 * wire.Day, RateLimit: 200, AuditRetention: 365 * wire.Day}},
		{"nothing", map[string]any{},
			map[string]any{"default_period": "90s", "retention": "2w", "session_idle": "48h", "session_max": "7d", "rate_limit": 200.0, "audit_retention": "365d", "snmp": snmpDefault, "exporter_names": []any{}, "mitigation_zones": []any{}, "blackhole_nexthop": []any{"192.0.2.1", "100::1"}},
			manage.Config{DefaultPeriod: 90 * time.Second, Retention: 14 * wire.Day, SessionIdle: 48 * time.Hour, SessionMax: 7 * wire.Day, RateLimit: 200, AuditRetention: 365 * wire.Day}},
		{"null resets", map[string]any{"default_period": nil, "session_idle": nil},
			map[string]any{"default_period": "1h", "retention": "2w", "session_idle": "1h", "session_max": "7d", "rate_limit": 200.0, "audit_retention": "365d", "snmp": snmpDefault, "exporter_names": []any{}, "mitigation_zones": []any{}, "blackhole_nexthop": []any{"192.0.2.1", "100::1"}},
			manage.Config{DefaultPeriod: time.Hour, Retention: 14 * wire.Day, SessionIdle: time.Hour, SessionMax: 7 * wire.Day, RateLimit: 200, AuditRetention: 365 * wire.Day}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			var got map[string]any
			e.must("set-config", map[string]any{"values": st.values}, &got)
			if !reflect.DeepEqual(got, st.want) {
				t.Fatalf("set-config answered %v, want %v", got, st.want)
			}
			e.must("get-config", nil, &got)
			if !reflect.DeepEqual(got, st.want) {
				t.Fatalf("get-config %v, want %v", got, st.want)
			}
			if c := e.settings.Config(); c != st.config {
				t.Fatalf("Config() = %+v, want %+v", c, st.config)
			}
			mu.Lock()
			last := seen[len(seen)-1]
			mu.Unlock()
			if last != st.config {
				t.Fatalf("the watcher last saw %+v, want %+v", last, st.config)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	// Once at Watch, then once per change; "nothing" changed nothing.
	if len(seen) != 4 {
		t.Errorf("the watcher was called %d times, want 4: %+v", len(seen), seen)
	}
}

func TestConfigBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("set-config", map[string]any{"values": map[string]any{"retention": "7d"}}, nil)
	tests := []struct {
		name  string
		args  map[string]any
		code  string
		attrs map[string]any
	}{
		{"unknown key", map[string]any{"values": map[string]any{"retension": "7d"}}, "INVALID-ARGUMENT",
			map[string]any{"name": "retension"}},
		{"number instead of a string", map[string]any{"values": map[string]any{"retention": 3600}}, "INVALID-ARGUMENT",
			map[string]any{"name": "retention", "reason": `must be a string holding a duration, such as "90s", "2h" or "30d"`}},
		{"boolean", map[string]any{"values": map[string]any{"session_max": true}}, "INVALID-ARGUMENT", map[string]any{"name": "session_max"}},
		{"object", map[string]any{"values": map[string]any{"session_max": map[string]any{"h": 1}}}, "INVALID-ARGUMENT",
			map[string]any{"name": "session_max"}},
		{"unknown unit", map[string]any{"values": map[string]any{"retention": "2y"}}, "INVALID-ARGUMENT", map[string]any{"name": "retention"}},
		{"two units", map[string]any{"values": map[string]any{"default_period": "1h30m"}}, "INVALID-ARGUMENT",
			map[string]any{"name": "default_period"}},
		{"Go duration", map[string]any{"values": map[string]any{"default_period": "1.5h"}}, "INVALID-ARGUMENT",
			map[string]any{"name": "default_period"}},
		{"too short", map[string]any{"values": map[string]any{"default_period": "0s"}}, "INVALID-ARGUMENT",
			map[string]any{"name": "default_period", "reason": "must be at least 1m"}},
		{"too long", map[string]any{"values": map[string]any{"retention": "9999999d"}}, "INVALID-ARGUMENT",
			map[string]any{"name": "retention"}},
		{"good and bad together", map[string]any{"values": map[string]any{"default_period": "5m", "session_idle": "2h", "session_max": "forever", "rate_limit": 200.0, "audit_retention": "365d", "snmp": snmpDefault, "exporter_names": []any{}, "mitigation_zones": []any{}, "blackhole_nexthop": []any{"192.0.2.1", "100::1"}}},
			"INVALID-ARGUMENT", map[string]any{"name": "session_max"}},
		{"good and unknown together", map[string]any{"values": map[string]any{"default_period": "5m", "zzz": "1h"}},
			"INVALID-ARGUMENT", map[string]any{"name": "zzz"}},
		{"idle longer than max", map[string]any{"values": map[string]any{"session_idle": "25h"}}, "INVALID-ARGUMENT",
			map[string]any{"name": "session_idle", "reason": "must not be longer than session_max (24h)"}},
		{"max shorter than idle", map[string]any{"values": map[string]any{"session_max": "30m", "retention": "1d"}}, "INVALID-ARGUMENT",
			map[string]any{"name": "session_max", "reason": "must not be shorter than session_idle (1h)"}},
		{"rate limit as a string", map[string]any{"values": map[string]any{"rate_limit": "50"}}, "INVALID-ARGUMENT",
			map[string]any{"name": "rate_limit", "reason": "must be a whole number from 0 to 1000000"}},
		{"negative rate limit", map[string]any{"values": map[string]any{"rate_limit": -1}}, "INVALID-ARGUMENT", map[string]any{"name": "rate_limit"}},
		{"fractional rate limit", map[string]any{"values": map[string]any{"rate_limit": 1.5}}, "INVALID-ARGUMENT", map[string]any{"name": "rate_limit"}},
		{"rate limit too high", map[string]any{"values": map[string]any{"rate_limit": 1e7}}, "INVALID-ARGUMENT", map[string]any{"name": "rate_limit"}},
		{"mitigation zones not a list", map[string]any{"values": map[string]any{"mitigation_zones": "Customers"}}, "INVALID-ARGUMENT", map[string]any{"name": "mitigation_zones"}},
		{"mitigation zone twice", map[string]any{"values": map[string]any{"mitigation_zones": []any{"A", "A"}}}, "INVALID-ARGUMENT", map[string]any{"name": "mitigation_zones"}},
		{"blackhole next hop on loopback", map[string]any{"values": map[string]any{"blackhole_nexthop": []any{"127.0.0.1"}}}, "INVALID-ARGUMENT", map[string]any{"name": "blackhole_nexthop"}},
		{"two IPv4 next hops", map[string]any{"values": map[string]any{"blackhole_nexthop": []any{"192.0.2.1", "192.0.2.2"}}}, "INVALID-ARGUMENT", map[string]any{"name": "blackhole_nexthop"}},
		{"values not an object", map[string]any{"values": "retention=1d"}, "INVALID-ARGUMENT", map[string]any{"name": "values"}},
		{"values missing", map[string]any{}, "TOO-FEW-ARGUMENTS", map[string]any{"names": []any{"values"}}},
		{"get-config takes nothing", nil, "UNKNOWN-ARGUMENTS", map[string]any{"names": []any{"key"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := e.snapshot()
			cfg := e.settings.Config()
			fn, args := "set-config", tt.args
			if args == nil {
				fn, args = "get-config", map[string]any{"key": "retention"}
			}
			checkError(t, e.call(fn, args), 400, tt.code, tt.attrs)
			if after := e.snapshot(); after != before {
				t.Errorf("a refused call changed the state:\nbefore %s\nafter  %s", before, after)
			}
			if e.settings.Config() != cfg {
				t.Errorf("a refused call changed the configuration: %+v, was %+v", e.settings.Config(), cfg)
			}
		})
	}
}
