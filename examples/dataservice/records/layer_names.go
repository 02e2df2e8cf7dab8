package records

import (
	"crypto/tls"
	"strconv"
	"strings"
)

// The names of the layers and of their values, as ingest reads them and the query language
// shows them (DESIGN.md, "Application layers").

var layerNames = [NumLayers]string{LayerTransport: "transport", LayerHTTP: "http", LayerDNS: "dns", LayerTLS: "tls"}

// String returns the layer's name ("transport", "http", "dns", "tls"), or its number.
func (l Layer) String() string {
	if l < NumLayers {
		return layerNames[l]
	}
	return strconv.Itoa(int(l))
}

// ParseLayer returns the layer named s; false for no layer.
func ParseLayer(s string) (Layer, bool) {
	for l, n := range layerNames {
		if n == s {
			return Layer(l), true
		}
	}
	return 0, false
}

var qtypeNames = map[uint16]string{1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 13: "HINFO", 15: "MX", 16: "TXT",
	28: "AAAA", 33: "SRV", 35: "NAPTR", 43: "DS", 46: "RRSIG", 47: "NSEC", 48: "DNSKEY", 52: "TLSA", 64: "SVCB", 65: "HTTPS",
	252: "AXFR", 255: "ANY", 257: "CAA"}

var rcodeNames = map[uint16]string{0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN", 4: "NOTIMP", 5: "REFUSED",
	6: "YXDOMAIN", 7: "YXRRSET", 8: "NXRRSET", 9: "NOTAUTH", 10: "NOTZONE", RCodeTimeout: "timeout"}

// QTypeName returns the name of a DNS query type ("A", "AAAA"), or its number as text.
func QTypeName(t uint16) string { return nameOr(qtypeNames, t) }

// RCodeName returns the name of a DNS response code ("NOERROR", "NXDOMAIN", "timeout" for
// RCodeTimeout), or its number as text.
func RCodeName(c uint16) string { return nameOr(rcodeNames, c) }

// ParseQType returns the query type named s (a name of QTypeName in any case, or a number
// 0..65535 as text).
func ParseQType(s string) (uint16, bool) { return parseName(qtypeNames, s, 65535) }

// ParseRCode returns the response code named s (a name of RCodeName in any case, or a number
// 0..4095 as text).
func ParseRCode(s string) (uint16, bool) { return parseName(rcodeNames, s, 4095) }

// TLSVersionName returns the version's name, "1.0" to "1.3" (0x0301 to 0x0304), or "" for
// another.
func TLSVersionName(v uint16) string {
	if v >= tls.VersionTLS10 && v <= tls.VersionTLS13 {
		return "1." + strconv.Itoa(int(v-tls.VersionTLS10))
	}
	return ""
}

// ParseTLSVersion returns the version named s, "1.0" to "1.3".
func ParseTLSVersion(s string) (uint16, bool) {
	if len(s) == 3 && s[0] == '1' && s[1] == '.' && s[2] >= '0' && s[2] <= '3' {
		return tls.VersionTLS10 + uint16(s[2]-'0'), true
	}
	return 0, false
}

// CipherName returns the IANA name of a cipher suite ("TLS_AES_128_GCM_SHA256"), as
// crypto/tls knows them, or "" for another.
func CipherName(c uint16) string {
	if n := tls.CipherSuiteName(c); !strings.HasPrefix(n, "0x") {
		return n
	}
	return ""
}

var cipherIDs = func() map[string]uint16 {
	m := map[string]uint16{}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		m[s.Name] = s.ID
	}
	return m
}()

// ParseCipher returns the cipher suite of IANA name s, one crypto/tls knows.
func ParseCipher(s string) (uint16, bool) {
	c, ok := cipherIDs[s]
	if !ok {
		c, ok = cipherIDs[strings.ToUpper(s)]
	}
	return c, ok
}

func nameOr(names map[uint16]string, n uint16) string {
	if s, ok := names[n]; ok {
		return s
	}
	return strconv.Itoa(int(n))
}

func parseName(names map[uint16]string, s string, max uint64) (uint16, bool) {
	for n, name := range names {
		if strings.EqualFold(name, s) {
			return n, true
		}
	}
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil || n > max || s != strconv.FormatUint(n, 10) {
		return 0, false
	}
	return uint16(n), true
}
