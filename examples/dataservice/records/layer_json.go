package records

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A record of a layer in JSON: "layer": "http" | "dns" | "tls" ("transport", the default,
// when absent or null), and the member of its layer, each value as the query language shows
// it:
//
//	"http": {"method": "GET", "status": 200, "host": "www.example.com", "path": "/api/users/{n}"}
//	"dns":  {"qname": "www.example.com", "qtype": "AAAA", "rcode": "NXDOMAIN"}
//	"tls":  {"version": "1.2", "cipher": "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
//	         "not_after": 1893456000, "issuer": "CN=R3,O=Let's Encrypt,C=US"}
//
// Every member is optional. status is 100..999, or 0 or null without a response; host is
// lower-cased and cut at its port; qname lower-cased, without its final dot; qtype a name
// ("A", "AAAA", ...) or a number 0..65535, as a number or as text; rcode a name ("NOERROR",
// "NXDOMAIN", ..., "timeout" for an unanswered query) or a number 0..4095; version "1.0" to
// "1.3" or the number on the wire (771 for 1.2); cipher an IANA name crypto/tls knows or a
// number 0..65535; not_after Unix seconds or an RFC 3339 time. A layer's member in a record of
// another layer is refused, and so is a value longer than its bound (layer.go).

// layerMembers are the record members of the layers, each its layer's name.
var layerMembers = []string{"http", "dns", "tls"}

// parseLayer parses a record's layer and its member from fields into r.
func parseLayer(fields map[string]json.RawMessage, r *Record) error {
	if v, ok := fields["layer"]; ok && !isNull(v) {
		var s string
		if !isString(v) || json.Unmarshal(v, &s) != nil {
			return &RecordError{Field: "layer", Reason: `not "transport", "http", "dns" or "tls"`}
		}
		l, ok := ParseLayer(s)
		if !ok {
			return &RecordError{Field: "layer", Reason: strconv.Quote(s) + ` is not "transport", "http", "dns" or "tls"`}
		}
		r.Layer = l
	}
	for _, m := range layerMembers {
		if v, ok := fields[m]; ok && !isNull(v) && r.Layer.String() != m {
			return &RecordError{Field: m, Reason: "a member of layer " + m + " in a record of layer " + r.Layer.String()}
		}
	}
	var err error
	switch v := fields[r.Layer.String()]; {
	case v == nil || isNull(v):
	case r.Layer == LayerHTTP:
		r.HTTP, err = parseHTTP(v)
	case r.Layer == LayerDNS:
		r.DNS, err = parseDNS(v)
	case r.Layer == LayerTLS:
		r.TLS, err = parseTLS(v)
	}
	return err
}

func parseHTTP(v json.RawMessage) (HTTP, error) {
	fields, err := object(v, "http", "http.", "method", "status", "host", "path")
	if err != nil {
		return HTTP{}, err
	}
	var h HTTP
	if h.Method, err = layerString(fields, "http", "method"); err != nil {
		return HTTP{}, err
	}
	if v, ok := fields["status"]; ok && !isNull(v) {
		n, err := integer(v)
		if err != nil || n != 0 && (n < 100 || n > 999) {
			return HTTP{}, &RecordError{Field: "http.status", Reason: "not an integer 100..999, 0 or null"}
		}
		h.Status = uint16(n)
	}
	if h.Host, err = layerString(fields, "http", "host"); err != nil {
		return HTTP{}, err
	}
	h.Host = hostWithoutPort(strings.ToLower(h.Host))
	if h.Path, err = layerString(fields, "http", "path"); err != nil {
		return HTTP{}, err
	}
	return h, nil
}

func parseDNS(v json.RawMessage) (DNS, error) {
	fields, err := object(v, "dns", "dns.", "qname", "qtype", "rcode")
	if err != nil {
		return DNS{}, err
	}
	var d DNS
	if d.QName, err = layerString(fields, "dns", "qname"); err != nil {
		return DNS{}, err
	}
	d.QName = strings.TrimSuffix(strings.ToLower(d.QName), ".")
	if d.QType, err = layerCode(fields, "dns.qtype", ParseQType, 65535, `a type ("A", "AAAA", ...) or a number 0..65535`); err != nil {
		return DNS{}, err
	}
	if d.RCode, err = layerCode(fields, "dns.rcode", ParseRCode, 4095, `a code ("NOERROR", "NXDOMAIN", ..., "timeout") or a number 0..4095`); err != nil {
		return DNS{}, err
	}
	return d, nil
}

func parseTLS(v json.RawMessage) (TLS, error) {
	fields, err := object(v, "tls", "tls.", "version", "cipher", "not_after", "issuer")
	if err != nil {
		return TLS{}, err
	}
	var t TLS
	if t.Version, err = layerCode(fields, "tls.version", ParseTLSVersion, 65535, `"1.0" to "1.3" or a number 0..65535`); err != nil {
		return TLS{}, err
	}
	if t.Cipher, err = layerCode(fields, "tls.cipher", ParseCipher, 65535, "an IANA name (TLS_AES_128_GCM_SHA256) or a number 0..65535"); err != nil {
		return TLS{}, err
	}
	if v, ok := fields["not_after"]; ok && !isNull(v) {
		if t.NotAfter, err = parseTime(v); err != nil {
			return TLS{}, named(err, "tls.not_after")
		}
	}
	if t.Issuer, err = layerString(fields, "tls", "issuer"); err != nil {
		return TLS{}, err
	}
	return t, nil
}

// layerString parses the optional string member name of a layer's object: "" when absent or
// null.
func layerString(fields map[string]json.RawMessage, layer, name string) (string, error) {
	v, ok := fields[name]
	if !ok || isNull(v) {
		return "", nil
	}
	var s string
	if !isString(v) || json.Unmarshal(v, &s) != nil {
		return "", &RecordError{Field: layer + "." + name, Reason: "not a string"}
	}
	return s, nil
}

// layerCode parses the optional code member of a layer's object (path names it): a name
// parse takes, or a number 0..max; 0 when absent or null.
func layerCode(fields map[string]json.RawMessage, path string, parse func(string) (uint16, bool), max int64, expected string) (uint16, error) {
	v, ok := fields[path[strings.IndexByte(path, '.')+1:]]
	if !ok || isNull(v) {
		return 0, nil
	}
	if isString(v) {
		var s string
		if json.Unmarshal(v, &s) == nil {
			if c, ok := parse(s); ok {
				return c, nil
			}
		}
		return 0, &RecordError{Field: path, Reason: "not " + expected}
	}
	n, err := integer(v)
	if err != nil || n < 0 || n > max {
		return 0, &RecordError{Field: path, Reason: "not " + expected}
	}
	return uint16(n), nil
}

// hostWithoutPort is host without a final ":port" (an IPv6 address in brackets keeps them).
func hostWithoutPort(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") && (host[0] == '[' || strings.Count(host, ":") == 1) {
		return host[:i]
	}
	return host
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// layerProblem returns what is wrong with r's layer and its values, or nil.
func (r *Record) layerProblem() error {
	switch {
	case r.Layer >= NumLayers:
		return &RecordError{Field: "layer", Reason: "unknown layer " + r.Layer.String()}
	case r.Layer != LayerHTTP && r.HTTP != HTTP{}:
		return &RecordError{Field: "http", Reason: "a member of layer http in a record of layer " + r.Layer.String()}
	case r.Layer != LayerDNS && r.DNS != DNS{}:
		return &RecordError{Field: "dns", Reason: "a member of layer dns in a record of layer " + r.Layer.String()}
	case r.Layer != LayerTLS && r.TLS != TLS{}:
		return &RecordError{Field: "tls", Reason: "a member of layer tls in a record of layer " + r.Layer.String()}
	case r.HTTP.Status != 0 && (r.HTTP.Status < 100 || r.HTTP.Status > 999):
		return &RecordError{Field: "http.status", Reason: "not 100..999 or 0"}
	case r.DNS.RCode > 4095 && r.DNS.RCode != RCodeTimeout:
		return &RecordError{Field: "dns.rcode", Reason: "not 0..4095"}
	case r.TLS.NotAfter < 0:
		return &RecordError{Field: "tls.not_after", Reason: "before 1970"}
	}
	for _, s := range []struct {
		field, v string
		max      int
		lower    bool
	}{
		{"http.method", r.HTTP.Method, MaxMethodLen, false}, {"http.host", r.HTTP.Host, MaxHostLen, true},
		{"http.path", r.HTTP.Path, MaxPathLen, false}, {"dns.qname", r.DNS.QName, MaxQNameLen, true},
		{"tls.issuer", r.TLS.Issuer, MaxIssuerLen, false},
	} {
		if reason := layerStringProblem(s.v, s.max, s.lower); reason != "" {
			return &RecordError{Field: s.field, Reason: reason}
		}
	}
	if h := r.HTTP.Host; h != "" && hostWithoutPort(h) != h {
		return &RecordError{Field: "http.host", Reason: "holds a port"}
	}
	if strings.HasSuffix(r.DNS.QName, ".") {
		return &RecordError{Field: "dns.qname", Reason: "ends with a dot"}
	}
	return nil
}

// layerStringProblem says what is wrong with a layer's string value of at most max bytes
// (lower case when lower), or "".
func layerStringProblem(s string, max int, lower bool) string {
	switch {
	case len(s) > max:
		return "longer than " + strconv.Itoa(max) + " bytes"
	case !utf8.ValidString(s):
		return "not valid UTF-8"
	}
	for _, c := range s {
		if !unicode.IsPrint(c) {
			return "contains a non-printable character"
		}
		if lower && unicode.ToLower(c) != c {
			return "not lower case"
		}
	}
	return ""
}

// layerJSON is the JSON of r's layer member (MarshalJSON), nil for the transport.
func (r *Record) layerJSON() any {
	switch r.Layer {
	case LayerHTTP:
		return struct {
			Method string `json:"method,omitempty"`
			Status uint16 `json:"status,omitempty"`
			Host   string `json:"host,omitempty"`
			Path   string `json:"path,omitempty"`
		}{r.HTTP.Method, r.HTTP.Status, r.HTTP.Host, r.HTTP.Path}
	case LayerDNS:
		return struct {
			QName string `json:"qname,omitempty"`
			QType string `json:"qtype"`
			RCode string `json:"rcode"`
		}{r.DNS.QName, QTypeName(r.DNS.QType), RCodeName(r.DNS.RCode)}
	case LayerTLS:
		var version, cipher any
		if v := TLSVersionName(r.TLS.Version); v != "" {
			version = v
		} else if r.TLS.Version != 0 {
			version = r.TLS.Version
		}
		if c := CipherName(r.TLS.Cipher); c != "" {
			cipher = c
		} else if r.TLS.Cipher != 0 {
			cipher = r.TLS.Cipher
		}
		return struct {
			Version  any    `json:"version,omitempty"`
			Cipher   any    `json:"cipher,omitempty"`
			NotAfter int64  `json:"not_after,omitempty"`
			Issuer   string `json:"issuer,omitempty"`
		}{version, cipher, r.TLS.NotAfter, r.TLS.Issuer}
	}
	return nil
}
