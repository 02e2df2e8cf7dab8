package records

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"time"
)

// ParseBatch parses every record of raw with ParseRecord. It is all or nothing: when a record is
// wrong it returns no records and a *BatchError naming the first bad record's index.
func ParseBatch(raw []json.RawMessage, now time.Time) ([]Record, error) {
	out := make([]Record, len(raw))
	limit := now.Add(MaxFuture).Unix()
	for i, r := range raw {
		if rec, ok := parseFast(r, limit); ok {
			out[i] = rec
			continue
		}
		rec, err := parseReference(r, now)
		if err != nil {
			return nil, &BatchError{Index: i, Err: err}
		}
		out[i] = rec
	}
	return out, nil
}

// ParseRecord parses and validates one record in the ingest format
//
//	{"time": 1700000000, "protocol": "tcp", "application": "https",
//	 "client": {"ip": "10.0.0.5", "port": 51234, "bytes": 1200, "packets": 9},
//	 "server": {"ip": "93.184.216.34", "port": 443, "bytes": 48000, "packets": 40}}
//
// and returns it normalised: time in Unix seconds (an RFC 3339 time is truncated to the second),
// protocol as a number, addresses canonical, application lower case and, when absent, null or
// empty, named by Application from the server port. time, protocol, client, server and the two
// ip fields are required; ports, bytes and packets default to 0; exporter (an address, or null)
// and the interface indexes in_if and out_if (0..2^32-1) are optional, as are the capture probe's
// fields: per side "rtt" (average seconds) with "rtt_samples", "retrans" and "zero_windows";
// for the conversation "ct", "srt" and "dtt" (average seconds) each with its "_samples",
// "resets" and "server_name" (lower-cased); and a layer's record's "layer" with its member
// (layer_json.go). A time without its samples count is one sample;
// times are kept as microsecond sums (Timing). now is the current time: a record more than
// MaxFuture after it is rejected. Errors are *RecordError.
func ParseRecord(raw json.RawMessage, now time.Time) (Record, error) {
	if r, ok := parseFast(raw, now.Add(MaxFuture).Unix()); ok {
		return r, nil
	}
	return parseReference(raw, now)
}

// parseReference is ParseRecord without its fast path: the definition of the format, on
// encoding/json, and the source of every error.
func parseReference(raw json.RawMessage, now time.Time) (Record, error) {
	fields, err := object(raw, "", "", "time", "protocol", "application", "client", "server", "exporter", "in_if", "out_if",
		"ct", "ct_samples", "ct_hist", "srt", "srt_samples", "srt_hist", "dtt", "dtt_samples", "dtt_hist", "resets", "server_name",
		"layer", "http", "dns", "tls")
	if err != nil {
		return Record{}, err
	}
	var r Record
	for _, name := range []string{"time", "protocol", "client", "server"} {
		if _, ok := fields[name]; !ok {
			return Record{}, &RecordError{Field: name, Reason: "missing"}
		}
	}
	if r.Time, err = parseTime(fields["time"]); err != nil {
		return Record{}, named(err, "time")
	}
	if r.Protocol, err = parseProtocolField(fields["protocol"]); err != nil {
		return Record{}, named(err, "protocol")
	}
	if v, ok := fields["application"]; ok {
		if r.Application, err = parseApplication(v); err != nil {
			return Record{}, named(err, "application")
		}
	}
	if r.Client, err = parseEndpoint(fields["client"], "client"); err != nil {
		return Record{}, err
	}
	if r.Server, err = parseEndpoint(fields["server"], "server"); err != nil {
		return Record{}, err
	}
	if v, ok := fields["exporter"]; ok && string(bytes.TrimSpace(v)) != "null" {
		if r.Exporter, err = parseAddr(v); err != nil {
			return Record{}, named(err, "exporter")
		}
	}
	if r.InIf, err = parseInterface(fields, "in_if"); err != nil {
		return Record{}, err
	}
	if r.OutIf, err = parseInterface(fields, "out_if"); err != nil {
		return Record{}, err
	}
	if r.CT, err = parseTiming(fields, "", "ct"); err != nil {
		return Record{}, err
	}
	if r.SRT, err = parseTiming(fields, "", "srt"); err != nil {
		return Record{}, err
	}
	if r.DTT, err = parseTiming(fields, "", "dtt"); err != nil {
		return Record{}, err
	}
	if r.Resets, err = optionalCount(fields, "", "resets"); err != nil {
		return Record{}, err
	}
	if v, ok := fields["server_name"]; ok && string(bytes.TrimSpace(v)) != "null" {
		var name string
		if !isString(v) || json.Unmarshal(v, &name) != nil {
			return Record{}, &RecordError{Field: "server_name", Reason: "not a string"}
		}
		r.ServerName = strings.ToLower(name)
	}
	if err := parseLayer(fields, &r); err != nil {
		return Record{}, err
	}
	if r.Application == "" {
		r.Application = Application(r.Protocol, r.Server.Port)
	}
	return r, r.Validate(now)
}

func parseTime(v json.RawMessage) (int64, error) {
	if isString(v) {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return 0, &RecordError{Reason: "invalid string"}
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return 0, &RecordError{Reason: "not an RFC 3339 time"}
		}
		if t.Unix() < 0 {
			return 0, &RecordError{Reason: "before 1970"}
		}
		return t.Unix(), nil
	}
	n, err := integer(v)
	if err != nil {
		return 0, &RecordError{Reason: "not Unix seconds (an integer) or an RFC 3339 string"}
	}
	if n < 0 {
		return 0, &RecordError{Reason: "before 1970"}
	}
	return n, nil
}

func parseProtocolField(v json.RawMessage) (uint8, error) {
	if isString(v) {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return 0, &RecordError{Reason: "invalid string"}
		}
		p, err := ParseProtocol(s)
		if err != nil {
			return 0, &RecordError{Reason: strings.TrimPrefix(err.Error(), "records: ")}
		}
		return p, nil
	}
	n, err := integer(v)
	if err != nil || n < 0 || n > 255 {
		return 0, &RecordError{Reason: `not "tcp", "udp", "icmp" or a number 0..255`}
	}
	return uint8(n), nil
}

func parseApplication(v json.RawMessage) (string, error) {
	if string(bytes.TrimSpace(v)) == "null" {
		return "", nil
	}
	var s string
	if !isString(v) || json.Unmarshal(v, &s) != nil {
		return "", &RecordError{Reason: "not a string"}
	}
	s = strings.ToLower(s)
	if s == "" {
		return "", nil
	}
	if reason := applicationProblem(s); reason != "" {
		return "", &RecordError{Reason: reason}
	}
	return s, nil
}

func parseEndpoint(v json.RawMessage, side string) (Endpoint, error) {
	fields, err := object(v, side, side+".", "ip", "port", "bytes", "packets", "rtt", "rtt_samples", "rtt_hist", "retrans", "zero_windows")
	if err != nil {
		return Endpoint{}, err
	}
	if _, ok := fields["ip"]; !ok {
		return Endpoint{}, &RecordError{Field: side + ".ip", Reason: "missing"}
	}
	var e Endpoint
	if e.IP, err = parseAddr(fields["ip"]); err != nil {
		return Endpoint{}, named(err, side+".ip")
	}
	if v, ok := fields["port"]; ok {
		n, err := integer(v)
		if err != nil || n < 0 || n > 65535 {
			return Endpoint{}, &RecordError{Field: side + ".port", Reason: "not an integer 0..65535"}
		}
		e.Port = uint16(n)
	}
	if v, ok := fields["bytes"]; ok {
		if e.Bytes, err = count(v); err != nil {
			return Endpoint{}, named(err, side+".bytes")
		}
	}
	if v, ok := fields["packets"]; ok {
		if e.Packets, err = count(v); err != nil {
			return Endpoint{}, named(err, side+".packets")
		}
	}
	if e.RTT, err = parseTiming(fields, side+".", "rtt"); err != nil {
		return Endpoint{}, err
	}
	if e.Retrans, err = optionalCount(fields, side+".", "retrans"); err != nil {
		return Endpoint{}, err
	}
	if e.ZeroWindows, err = optionalCount(fields, side+".", "zero_windows"); err != nil {
		return Endpoint{}, err
	}
	return e, nil
}

// optionalCount parses the optional count fields[name] (path prefix+name in errors): 0 when
// absent.
func optionalCount(fields map[string]json.RawMessage, prefix, name string) (uint64, error) {
	v, ok := fields[name]
	if !ok {
		return 0, nil
	}
	n, err := count(v)
	return n, named(err, prefix+name)
}

// parseInterface parses the optional interface index fields[name]: 0 when absent.
func parseInterface(fields map[string]json.RawMessage, name string) (uint32, error) {
	v, ok := fields[name]
	if !ok {
		return 0, nil
	}
	n, err := integer(v)
	if err != nil || n < 0 || n > math.MaxUint32 {
		return 0, &RecordError{Field: name, Reason: "not an integer 0..4294967295"}
	}
	return uint32(n), nil
}
