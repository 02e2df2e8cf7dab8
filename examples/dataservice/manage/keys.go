package manage

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/wire"
)

// Configuration keys.
const (
	// KeyDefaultPeriod is the length of a query's period when it gives no SINCE. Default "1h".
	KeyDefaultPeriod = "default_period"
	// KeyRetention is how long traffic records are kept. Default "30d".
	KeyRetention = "retention"
	// KeySessionIdle is how long a session stays valid without a call. Default "1h".
	KeySessionIdle = "session_idle"
	// KeySessionMax is the longest a session stays valid after login. Default "24h".
	KeySessionMax = "session_max"
	// KeyRateLimit is how many calls per second one caller may make, in bursts of twice as
	// many; 0 turns the limit off. A number, not a string. Default 200 (or -rate-limit).
	KeyRateLimit = "rate_limit"
	// KeyAuditRetention is how long the audit trail keeps an event. Default "365d".
	KeyAuditRetention = "audit_retention"
	// KeySNMP is the exporters polled by SNMP for their names (see netctx.Poller). Default: none.
	KeySNMP = "snmp"
	// KeyExporterNames is the static names of exporters and interfaces. Default: none.
	KeyExporterNames = "exporter_names"
	// KeyMitigationZones is the zones whose addresses alert rules may announce to BGP
	// peers. Default: none, nothing is announced.
	KeyMitigationZones = "mitigation_zones"
	// KeyBlackholeNexthop is the next hops of blackhole routes. Default 192.0.2.1 and 100::1.
	KeyBlackholeNexthop = "blackhole_nexthop"
)

// MaxRateLimit is the largest rate_limit.
const MaxRateLimit = 1_000_000

// Key describes one configuration key: its meaning, its default and the values it takes.
type Key struct {
	// Name is the key in get-config and set-config.
	Name string
	// Description says what the key sets.
	Description string
	// Default is the value the key has until it is set.
	Default string
	// Min and Max bound the key's duration.
	Min, Max time.Duration
	// Integer marks a key whose value is a whole JSON number from MinInt to MaxInt, rather
	// than a duration; its Default is that number as text.
	Integer        bool
	MinInt, MaxInt int64
	// JSON marks a key whose value is a JSON object or array that check accepts; its Default
	// is that JSON text.
	JSON bool
	// check returns why a JSON key's value is refused, or "".
	check func(raw json.RawMessage) string
	// redact returns the value as get-config and the audit trail show it: secrets hidden.
	redact func(raw json.RawMessage) json.RawMessage
	// keep returns the value set with the secrets it hides (Hidden) taken from old.
	keep func(old, set json.RawMessage) json.RawMessage
}

// Keys returns the configuration keys, in the order of their names.
func Keys() []Key {
	return []Key{
		{Name: KeyAuditRetention, Description: "how long the audit trail keeps an event; older ones are deleted",
			Default: "365d", Min: wire.Day, Max: 3660 * wire.Day},
		{Name: KeyDefaultPeriod, Description: "length of a query's period when it gives no SINCE",
			Default: "1h", Min: time.Minute, Max: 366 * wire.Day},
		{Name: KeyRetention, Description: "how long traffic records are kept",
			Default: "30d", Min: time.Hour, Max: 3660 * wire.Day},
		{Name: KeySessionIdle, Description: "how long a session stays valid without a call; at most session_max",
			Default: "1h", Min: time.Minute, Max: 366 * wire.Day},
		{Name: KeySessionMax, Description: "the longest a session stays valid after login",
			Default: "24h", Min: time.Minute, Max: 366 * wire.Day},
		{Name: KeyRateLimit, Description: "calls per second one caller may make, in bursts of twice as many; 0 turns the limit off",
			Default: "200", Integer: true, MinInt: 0, MaxInt: MaxRateLimit},
		snmpKey(),
		exporterNamesKey(),
		mitigationZonesKey(),
		blackholeNexthopKey(),
	}
}

// parse checks a JSON value for the key and returns its value (a duration in nanoseconds, or
// the number of an Integer key), or the reason it is refused.
func (k *Key) parse(raw json.RawMessage) (int64, string) {
	if k.JSON {
		return 0, k.check(raw)
	}
	if k.Integer {
		var n int64
		if err := json.Unmarshal(raw, &n); err != nil {
			return 0, fmt.Sprintf("must be a whole number from %d to %d", k.MinInt, k.MaxInt)
		}
		return k.bound(n)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, `must be a string holding a duration, such as "90s", "2h" or "30d"`
	}
	return k.parseString(s)
}

// parseString checks a value written as text (a default, a flag) for the key.
func (k *Key) parseString(s string) (int64, string) {
	if k.JSON {
		return 0, k.check(json.RawMessage(s))
	}
	if k.Integer {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Sprintf("must be a whole number from %d to %d", k.MinInt, k.MaxInt)
		}
		return k.bound(n)
	}
	d, err := wire.ParseDuration(s)
	if err != nil {
		return 0, err.Error()
	}
	if d < k.Min {
		return 0, "must be at least " + wire.FormatDuration(k.Min)
	}
	if d > k.Max {
		return 0, "must be at most " + wire.FormatDuration(k.Max)
	}
	return int64(d), ""
}

func (k *Key) bound(n int64) (int64, string) {
	if n < k.MinInt || n > k.MaxInt {
		return 0, fmt.Sprintf("must be a whole number from %d to %d", k.MinInt, k.MaxInt)
	}
	return n, ""
}

// defaultJSON is the default as get-config answers it: a string, or a number for an Integer key.
func (k *Key) defaultJSON() json.RawMessage {
	if k.Integer || k.JSON {
		return json.RawMessage(k.Default)
	}
	b, _ := json.Marshal(k.Default)
	return b
}

// bounds describes the values the key takes, for doc.
func (k *Key) bounds() string {
	if k.JSON {
		return "see docs/api.md, set-config"
	}
	if k.Integer {
		return fmt.Sprintf("%d to %d", k.MinInt, k.MaxInt)
	}
	return wire.FormatDuration(k.Min) + " to " + wire.FormatDuration(k.Max)
}

// CheckDefault returns why value cannot be the default of the configuration key (as
// WithDefault would refuse it), or nil when it can: for command-line flags, checked before
// anything is opened.
func CheckDefault(key, value string) error {
	for _, k := range Keys() {
		if k.Name == key {
			if _, reason := k.parseString(value); reason != "" {
				return errors.New(reason)
			}
			return nil
		}
	}
	return fmt.Errorf("unknown configuration key %q", key)
}
