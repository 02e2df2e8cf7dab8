package manage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
)

// Hidden stands, in get-config's answer and the audit trail, for a secret of the snmp key (a
// community or a password). set-config given Hidden for a secret keeps the one stored for
// the same exporter, so that a client may send back what get-config answered.
const Hidden = "(hidden)"

// Bounds of the snmp and exporter_names keys.
const (
	// MaxSNMPExporters is the most exporters the snmp key lists.
	MaxSNMPExporters = 1000
	// MaxNamedExporters is the most exporters exporter_names lists, MaxNamedInterfaces the
	// most interfaces it names in all.
	MaxNamedExporters  = 1000
	MaxNamedInterfaces = 100_000
)

// snmpConfig is the snmp key's value.
type snmpConfig struct {
	// Interval is how often each exporter is polled: a duration from 1m to 1d. Default 5m.
	Interval  string         `json:"interval,omitempty"`
	Exporters []snmpExporter `json:"exporters"`
}

type snmpExporter struct {
	Address      string `json:"address"`
	Port         uint16 `json:"port,omitempty"`
	Version      string `json:"version"`
	Community    string `json:"community,omitempty"`
	User         string `json:"user,omitempty"`
	AuthProtocol string `json:"auth_protocol,omitempty"`
	AuthPassword string `json:"auth_password,omitempty"`
	PrivProtocol string `json:"priv_protocol,omitempty"`
	PrivPassword string `json:"priv_password,omitempty"`
}

// secrets returns pointers to the exporter's secrets.
func (e *snmpExporter) secrets() []*string {
	return []*string{&e.Community, &e.AuthPassword, &e.PrivPassword}
}

func snmpKey() Key {
	return Key{Name: KeySNMP, JSON: true, Default: `{"interval":"5m","exporters":[]}`,
		Description: `exporters whose sysName and interfaces' ifName, ifAlias and ifHighSpeed are polled by SNMP: ` +
			`{"interval": "5m", "exporters": [{"address", "port", "version": "2c", "community"} or ` +
			`{"address", "version": "3", "user", "auth_protocol", "auth_password", "priv_protocol", "priv_password"}]}; ` +
			`secrets are answered as "` + Hidden + `", and "` + Hidden + `" sent back keeps them`,
		check: func(raw json.RawMessage) string {
			if _, _, err := parseSNMP(raw); err != nil {
				return err.Error()
			}
			return ""
		},
		redact: func(raw json.RawMessage) json.RawMessage {
			var c snmpConfig
			if json.Unmarshal(raw, &c) != nil {
				return raw
			}
			for i := range c.Exporters {
				for _, s := range c.Exporters[i].secrets() {
					if *s != "" {
						*s = Hidden
					}
				}
			}
			b, _ := json.Marshal(c)
			return b
		},
		keep: func(old, set json.RawMessage) json.RawMessage {
			var o, c snmpConfig
			if json.Unmarshal(set, &c) != nil {
				return set
			}
			_ = json.Unmarshal(old, &o)
			for i := range c.Exporters {
				e := &c.Exporters[i]
				var prev *snmpExporter
				for j := range o.Exporters {
					if o.Exporters[j].Address == e.Address {
						prev = &o.Exporters[j]
					}
				}
				for k, s := range e.secrets() {
					if *s == Hidden {
						*s = ""
						if prev != nil {
							*s = *prev.secrets()[k]
						}
					}
				}
			}
			b, _ := json.Marshal(c)
			return b
		},
	}
}

func exporterNamesKey() Key {
	return Key{Name: KeyExporterNames, JSON: true, Default: `[]`,
		Description: `static names of exporters and their interfaces, used where SNMP names nothing: ` +
			`[{"address": "192.0.2.1", "name": "edge-1", "interfaces": [{"index": 1, "name": "ge-0/0/1", "alias": "uplink", "speed": 10000}]}] (speed in Mbit/s)`,
		check: func(raw json.RawMessage) string {
			if _, err := parseExporterNames(raw); err != nil {
				return err.Error()
			}
			return ""
		},
	}
}

// strict decodes raw into v, refusing unknown fields and trailing data.
func strict(raw json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("trailing data")
	}
	return nil
}

// ParseSNMP reads the snmp key's value (Config.SNMP; "" for the default): the exporters to
// poll and how often.
func ParseSNMP(value string) ([]netctx.Target, time.Duration, error) {
	if value == "" {
		return nil, netctx.DefaultSNMPInterval, nil
	}
	return parseSNMP(json.RawMessage(value))
}

func parseSNMP(raw json.RawMessage) ([]netctx.Target, time.Duration, error) {
	var c snmpConfig
	if err := strict(raw, &c); err != nil {
		return nil, 0, fmt.Errorf(`want {"interval": "5m", "exporters": [...]}: %v`, err)
	}
	interval := netctx.DefaultSNMPInterval
	if c.Interval != "" {
		d, err := wire.ParseDuration(c.Interval)
		if err != nil {
			return nil, 0, fmt.Errorf("interval: %v", err)
		}
		if d < time.Minute || d > wire.Day {
			return nil, 0, fmt.Errorf("interval: must be from 1m to 1d")
		}
		interval = d
	}
	if len(c.Exporters) > MaxSNMPExporters {
		return nil, 0, fmt.Errorf("exporters: at most %d", MaxSNMPExporters)
	}
	seen := map[netip.Addr]bool{}
	ts := make([]netctx.Target, 0, len(c.Exporters))
	for i, e := range c.Exporters {
		a, err := netip.ParseAddr(e.Address)
		if err != nil {
			return nil, 0, fmt.Errorf("exporters[%d].address: %q is not an IP address", i, e.Address)
		}
		if seen[a.Unmap()] {
			return nil, 0, fmt.Errorf("exporters[%d].address: %s listed twice", i, a)
		}
		seen[a.Unmap()] = true
		t := netctx.Target{Address: a, Port: e.Port, Version: e.Version, Community: e.Community, User: e.User,
			AuthProtocol: e.AuthProtocol, AuthPassword: e.AuthPassword, PrivProtocol: e.PrivProtocol, PrivPassword: e.PrivPassword}
		if err := t.Check(); err != nil {
			return nil, 0, fmt.Errorf("exporters[%d]: %v", i, err)
		}
		ts = append(ts, t)
	}
	return ts, interval, nil
}

type namedExporter struct {
	Address    string           `json:"address"`
	Name       string           `json:"name"`
	Interfaces []namedInterface `json:"interfaces,omitempty"`
}

type namedInterface struct {
	Index uint32 `json:"index"`
	Name  string `json:"name,omitempty"`
	Alias string `json:"alias,omitempty"`
	Speed uint64 `json:"speed,omitempty"`
}

// ParseExporterNames reads the exporter_names key's value (Config.ExporterNames; "" for the
// default).
func ParseExporterNames(value string) ([]netctx.Device, error) {
	if value == "" {
		return nil, nil
	}
	return parseExporterNames(json.RawMessage(value))
}

func parseExporterNames(raw json.RawMessage) ([]netctx.Device, error) {
	var es []namedExporter
	if err := strict(raw, &es); err != nil {
		return nil, fmt.Errorf(`want [{"address", "name", "interfaces": [{"index", "name", "alias", "speed"}]}]: %v`, err)
	}
	if len(es) > MaxNamedExporters {
		return nil, fmt.Errorf("at most %d exporters", MaxNamedExporters)
	}
	seen := map[netip.Addr]bool{}
	n := 0
	out := make([]netctx.Device, 0, len(es))
	for i, e := range es {
		a, err := netip.ParseAddr(e.Address)
		if err != nil {
			return nil, fmt.Errorf("[%d].address: %q is not an IP address", i, e.Address)
		}
		if seen[a.Unmap()] {
			return nil, fmt.Errorf("[%d].address: %s listed twice", i, a)
		}
		seen[a.Unmap()] = true
		d := netctx.Device{Address: a.Unmap(), Name: e.Name, Interfaces: map[uint32]netctx.Interface{}}
		for j, f := range e.Interfaces {
			if n++; n > MaxNamedInterfaces {
				return nil, fmt.Errorf("at most %d interfaces in all", MaxNamedInterfaces)
			}
			if f.Index == 0 {
				return nil, fmt.Errorf("[%d].interfaces[%d].index: must be from 1", i, j)
			}
			if _, dup := d.Interfaces[f.Index]; dup {
				return nil, fmt.Errorf("[%d].interfaces[%d].index: %d listed twice", i, j, f.Index)
			}
			d.Interfaces[f.Index] = netctx.Interface{Index: f.Index, Name: f.Name, Alias: f.Alias, Speed: f.Speed}
		}
		out = append(out, d)
	}
	return out, nil
}

// RedactConfig returns set-config's values with the secrets they hold replaced by Hidden, as
// the audit trail records them.
func RedactConfig(values json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(values, &m) != nil {
		return values
	}
	for _, k := range Keys() {
		if v, ok := m[k.Name]; ok && k.redact != nil && !isNull(v) {
			m[k.Name] = k.redact(v)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return values
	}
	return b
}
