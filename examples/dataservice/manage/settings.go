package manage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// Config is the configuration, typed.
type Config struct {
	// DefaultPeriod is the length of a query's period when it gives no SINCE.
	DefaultPeriod time.Duration
	// Retention is how long traffic records are kept.
	Retention time.Duration
	// SessionIdle is how long a session stays valid without a call; never above SessionMax.
	SessionIdle time.Duration
	// SessionMax is the longest a session stays valid after login.
	SessionMax time.Duration
	// RateLimit is the calls per second one caller may make; 0 for no limit.
	RateLimit int
	// AuditRetention is how long the audit trail keeps an event.
	AuditRetention time.Duration
	// SNMP and ExporterNames are the JSON values of snmp and exporter_names, secrets
	// included; "" while unset (the defaults: no exporter). ParseSNMP and ParseExporterNames
	// read them.
	SNMP, ExporterNames string
	// MitigationZones and BlackholeNexthop are the JSON values of mitigation_zones and
	// blackhole_nexthop; "" while unset. ParseMitigationZones and ParseBlackholeNexthop
	// read them.
	MitigationZones, BlackholeNexthop string
}

// Settings is the service's configuration: the values set in a state.Store, checked against
// their keys, with defaults for the rest. It is safe for concurrent use.
type Settings struct {
	store state.Store
	keys  map[string]Key

	write sync.Mutex // serialises Set and Reload, so watchers see changes in order

	mu       sync.Mutex // guards what follows
	values   map[string]json.RawMessage
	config   Config
	watchers []func(Config)
}

// SettingsOption configures NewSettings.
type SettingsOption func(*Settings) error

// WithDefault makes value the default of the key instead of the built-in one (an operator's
// command-line flag, for instance). The value must be valid for the key.
func WithDefault(key, value string) SettingsOption {
	return func(s *Settings) error {
		k, ok := s.keys[key]
		if !ok {
			return fmt.Errorf("manage: default for unknown configuration key %q", key)
		}
		if _, reason := k.parseString(value); reason != "" {
			return fmt.Errorf("manage: default %q for %s: %s", value, key, reason)
		}
		k.Default = value
		s.keys[key] = k
		return nil
	}
}

// NewSettings reads the configuration from st. A stored value that is no longer valid for its
// key (the store edited by hand, or a key's bounds narrowed) counts as unset; keys this
// program does not know are left in the store untouched.
func NewSettings(ctx context.Context, st state.Store, opts ...SettingsOption) (*Settings, error) {
	s := &Settings{store: st, keys: map[string]Key{}}
	for _, k := range Keys() {
		s.keys[k.Name] = k
	}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	stored, err := st.Config(ctx)
	if err != nil {
		return nil, fmt.Errorf("manage: read configuration: %w", err)
	}
	s.values, s.config = s.effective(stored)
	return s, nil
}

// Config returns the current configuration.
func (s *Settings) Config() Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.config
}

// DefaultPeriod returns the current default_period.
func (s *Settings) DefaultPeriod() time.Duration { return s.Config().DefaultPeriod }

// Retention returns the current retention.
func (s *Settings) Retention() time.Duration { return s.Config().Retention }

// SessionIdle returns the current session_idle (never above session_max).
func (s *Settings) SessionIdle() time.Duration { return s.Config().SessionIdle }

// RateLimit returns the current rate_limit: calls per second per caller, 0 for no limit.
func (s *Settings) RateLimit() int { return s.Config().RateLimit }

// AuditRetention returns the current audit_retention.
func (s *Settings) AuditRetention() time.Duration { return s.Config().AuditRetention }

// SessionMax returns the current session_max.
func (s *Settings) SessionMax() time.Duration { return s.Config().SessionMax }

// Values returns every key with its value as get-config answers it: as set, or the default.
func (s *Settings) Values() map[string]json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.values)
}

// Watch calls fn with the current configuration now, and again after every change, in the
// order of the changes. fn runs on the goroutine that made the change, before set-config
// answers; it must be quick and must not call Set or Reload.
func (s *Settings) Watch(fn func(Config)) {
	s.write.Lock()
	defer s.write.Unlock()
	s.mu.Lock()
	s.watchers = append(s.watchers, fn)
	c := s.config
	s.mu.Unlock()
	fn(c)
}

// Set checks values (key -> JSON value; null resets a key to its default) and stores them in
// one transaction: all or none. It answers the values as Values does afterwards. A key or
// value it refuses is an INVALID-ARGUMENT *apierr.Error naming the key.
func (s *Settings) Set(ctx context.Context, values map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	names := slices.Sorted(maps.Keys(values))
	for _, name := range names {
		k, ok := s.keys[name]
		if !ok {
			return nil, apierr.New(apierr.InvalidArgument, "name", name,
				"reason", "unknown configuration key; known keys: "+s.keyList())
		}
		if isNull(values[name]) {
			continue
		}
		if _, reason := k.parse(values[name]); reason != "" {
			return nil, apierr.New(apierr.InvalidArgument, "name", name, "reason", reason)
		}
	}
	s.write.Lock()
	defer s.write.Unlock()
	stored, err := s.store.UpdateConfig(ctx, func(stored map[string]string) error {
		for _, name := range names {
			if isNull(values[name]) {
				delete(stored, name)
				continue
			}
			value := values[name]
			if k := s.keys[name]; k.keep != nil {
				old, ok := stored[name]
				if !ok {
					old = k.Default
				}
				value = k.keep(json.RawMessage(old), value)
				if _, reason := k.parse(value); reason != "" { // a secret hidden that nothing kept
					return apierr.New(apierr.InvalidArgument, "name", name, "reason", reason)
				}
			}
			var b bytes.Buffer
			if err := json.Compact(&b, value); err != nil {
				return err // checked above
			}
			stored[name] = b.String()
		}
		return s.consistent(stored, names)
	})
	if err != nil {
		return nil, err
	}
	return s.apply(stored), nil
}

// Reload reads the configuration from the store again, for changes made by other processes
// sharing it, and calls the watchers when it changed.
func (s *Settings) Reload(ctx context.Context) error {
	s.write.Lock()
	defer s.write.Unlock()
	stored, err := s.store.Config(ctx)
	if err != nil {
		return fmt.Errorf("manage: read configuration: %w", err)
	}
	s.apply(stored)
	return nil
}

// apply makes stored the current configuration and tells the watchers when the typed
// configuration changed. The caller holds s.write.
func (s *Settings) apply(stored map[string]string) map[string]json.RawMessage {
	values, config := s.effective(stored)
	s.mu.Lock()
	changed := config != s.config
	s.values, s.config = values, config
	watchers := slices.Clone(s.watchers)
	s.mu.Unlock()
	if changed {
		for _, fn := range watchers {
			fn(config)
		}
	}
	return maps.Clone(values)
}

// consistent checks the rules between keys on the values a change of the keys set would
// store: a session is never idle longer than it may live.
func (s *Settings) consistent(stored map[string]string, set []string) error {
	idle, life := s.duration(stored, KeySessionIdle), s.duration(stored, KeySessionMax)
	switch {
	case idle <= life:
		return nil
	case slices.Contains(set, KeySessionIdle):
		return apierr.New(apierr.InvalidArgument, "name", KeySessionIdle,
			"reason", "must not be longer than session_max ("+s.text(stored, KeySessionMax)+")")
	case slices.Contains(set, KeySessionMax):
		return apierr.New(apierr.InvalidArgument, "name", KeySessionMax,
			"reason", "must not be shorter than session_idle ("+s.text(stored, KeySessionIdle)+")")
	}
	return nil // already so before this change (a default changed): Config clamps it
}

// effective returns every key's value (stored and valid, else the default) and the typed
// configuration.
func (s *Settings) effective(stored map[string]string) (map[string]json.RawMessage, Config) {
	values := make(map[string]json.RawMessage, len(s.keys))
	for name, k := range s.keys {
		if _, ok := s.stored(stored, name); ok {
			values[name] = json.RawMessage(stored[name])
		} else {
			values[name] = k.defaultJSON()
		}
		if k.redact != nil {
			values[name] = k.redact(values[name])
		}
	}
	c := Config{
		DefaultPeriod:  s.duration(stored, KeyDefaultPeriod),
		Retention:      s.duration(stored, KeyRetention),
		SessionIdle:    min(s.duration(stored, KeySessionIdle), s.duration(stored, KeySessionMax)),
		SessionMax:     s.duration(stored, KeySessionMax),
		RateLimit:      int(s.value(stored, KeyRateLimit)),
		AuditRetention: s.duration(stored, KeyAuditRetention),
	}
	if _, ok := s.stored(stored, KeySNMP); ok {
		c.SNMP = stored[KeySNMP]
	}
	if _, ok := s.stored(stored, KeyExporterNames); ok {
		c.ExporterNames = stored[KeyExporterNames]
	}
	if _, ok := s.stored(stored, KeyMitigationZones); ok {
		c.MitigationZones = stored[KeyMitigationZones]
	}
	if _, ok := s.stored(stored, KeyBlackholeNexthop); ok {
		c.BlackholeNexthop = stored[KeyBlackholeNexthop]
	}
	return values, c
}

// stored returns the value stored for a key, and whether one is stored and valid.
func (s *Settings) stored(stored map[string]string, name string) (int64, bool) {
	text, ok := stored[name]
	if !ok {
		return 0, false
	}
	k := s.keys[name]
	d, reason := k.parse(json.RawMessage(text))
	return d, reason == ""
}

// text returns a key's value as written: as stored when valid, else its default.
func (s *Settings) text(stored map[string]string, name string) string {
	if _, ok := s.stored(stored, name); ok {
		var v string
		if json.Unmarshal([]byte(stored[name]), &v) == nil {
			return v
		}
	}
	return s.keys[name].Default
}

// duration returns a key's duration: as stored when valid, else its default.
func (s *Settings) duration(stored map[string]string, name string) time.Duration {
	return time.Duration(s.value(stored, name))
}

// value returns a key's value: as stored when valid, else its default.
func (s *Settings) value(stored map[string]string, name string) int64 {
	if v, ok := s.stored(stored, name); ok {
		return v
	}
	k := s.keys[name]
	v, _ := k.parseString(k.Default)
	return v
}

func (s *Settings) keyList() string {
	names := slices.Sorted(maps.Keys(s.keys))
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}
