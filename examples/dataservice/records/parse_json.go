package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"strconv"
	"unicode/utf8"

	"github.com/fnapi/fnapi/internal/jsonobject"
)

// object decodes raw as a JSON object into its members named in known; path names the object
// in errors and prefix is the path of its members ("" or "client."). A member not in known is
// refused, the first of them by name ("unknown field"); a repeated member counts once, its
// last value. It reads the members in place in one pass (jsonobject.Each), which checks raw
// is valid JSON as it goes: neither an unknown member nor a repeated one costs memory, so that
// an object of millions of members costs that pass and no more. The values are raw's bytes,
// not copies.
func object(raw json.RawMessage, path, prefix string, known ...string) (map[string]json.RawMessage, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, &RecordError{Field: path, Reason: "not an object"}
	}
	m := make(map[string]json.RawMessage, len(known))
	var unknown []byte // the first unknown member's name, by name (when hasUnknown)
	hasUnknown := false
	valid := jsonobject.Each(raw, func(key, v []byte) {
		name := key[1 : len(key)-1]
		if bytes.IndexByte(name, '\\') >= 0 || !isASCII(name) {
			var s string
			_ = json.Unmarshal(key, &s) // a valid string: escapes and invalid UTF-8 as json decodes them
			name = []byte(s)
		}
		if k, ok := knownName(known, name); ok {
			m[k] = v
		} else if !hasUnknown || bytes.Compare(name, unknown) < 0 {
			unknown, hasUnknown = name, true
		}
	})
	switch {
	case !valid:
		return nil, &RecordError{Field: path, Reason: "invalid JSON object"}
	case hasUnknown:
		return nil, &RecordError{Field: prefix + string(unknown), Reason: "unknown field"}
	}
	return m, nil
}

// knownName returns the name of known that name is.
func knownName(known []string, name []byte) (string, bool) {
	for _, k := range known {
		if k == string(name) {
			return k, true
		}
	}
	return "", false
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
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
