package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
)

// object decodes raw as a JSON object into its members; path names it in errors.
func object(raw json.RawMessage, path string) (map[string]json.RawMessage, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, &RecordError{Field: path, Reason: "not an object"}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &RecordError{Field: path, Reason: "invalid JSON object"}
	}
	return m, nil
}

// checkFields returns a *RecordError for the first (by name) member of fields not in known;
// prefix is the path of the object ("" or "client.").
func checkFields(fields map[string]json.RawMessage, prefix string, known ...string) error {
	var unknown []string
	for name := range fields {
		if !slices.Contains(known, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	return &RecordError{Field: prefix + slices.Min(unknown), Reason: "unknown field"}
}

// named sets the field of a *RecordError that has none and returns it.
func named(err error, field string) error {
	if re, ok := err.(*RecordError); ok && re.Field == "" {
		re.Field = field
	}
	return err
}

func parseAddr(v json.RawMessage) (netip.Addr, error) {
	var s string
	if !isString(v) || json.Unmarshal(v, &s) != nil {
		return netip.Addr{}, &RecordError{Reason: "not a string"}
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, &RecordError{Reason: fmt.Sprintf("%q is not an IPv4 or IPv6 address", s)}
	}
	if a.Zone() != "" {
		return netip.Addr{}, &RecordError{Reason: "address with a zone"}
	}
	return a.Unmap(), nil
}

// count parses a non-negative integer at most MaxCount.
func count(v json.RawMessage) (uint64, error) {
	n, err := integer(v)
	switch {
	case err != nil:
		return 0, &RecordError{Reason: "not an integer"}
	case n < 0:
		return 0, &RecordError{Reason: "negative"}
	case n > MaxCount:
		return 0, &RecordError{Reason: "above 2^53-1"}
	}
	return uint64(n), nil
}

// integer parses a JSON number without fraction or exponent that fits an int64.
func integer(v json.RawMessage) (int64, error) {
	s := string(bytes.TrimSpace(v))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("records: %q is not an integer", s)
	}
	return n, nil
}

func isString(v json.RawMessage) bool {
	t := bytes.TrimSpace(v)
	return len(t) > 0 && t[0] == '"'
}
