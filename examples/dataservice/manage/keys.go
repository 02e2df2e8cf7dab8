package manage

import (
	"encoding/json"
	"time"
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
)

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
}

// Keys returns the configuration keys, in the order of their names.
func Keys() []Key {
	return []Key{
		{Name: KeyDefaultPeriod, Description: "length of a query's period when it gives no SINCE",
			Default: "1h", Min: time.Minute, Max: 366 * Day},
		{Name: KeyRetention, Description: "how long traffic records are kept",
			Default: "30d", Min: time.Hour, Max: 3660 * Day},
		{Name: KeySessionIdle, Description: "how long a session stays valid without a call; at most session_max",
			Default: "1h", Min: time.Minute, Max: 366 * Day},
		{Name: KeySessionMax, Description: "the longest a session stays valid after login",
			Default: "24h", Min: time.Minute, Max: 366 * Day},
	}
}

// parse checks a JSON value for the key and returns its duration, or the reason it is refused.
func (k *Key) parse(raw json.RawMessage) (time.Duration, string) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, `must be a string holding a duration, such as "90s", "2h" or "30d"`
	}
	return k.parseString(s)
}

func (k *Key) parseString(s string) (time.Duration, string) {
	d, err := ParseDuration(s)
	if err != nil {
		return 0, err.Error()
	}
	if d < k.Min {
		return 0, "must be at least " + FormatDuration(k.Min)
	}
	if d > k.Max {
		return 0, "must be at most " + FormatDuration(k.Max)
	}
	return d, ""
}
