package records

import (
	"math"
	"net/netip"
	"time"
)

// parseFast parses a record in the common, simple form in one pass over its bytes, without
// allocating (but for IPv6 addresses, RFC 3339 times and unusual application names); limit is
// the latest time allowed, now.Add(MaxFuture).Unix(). It says ok == false for anything else: an
// escape or a byte outside printable ASCII in a string, a member that is unknown, repeated or
// missing, a number with a sign, fraction or exponent, invalid JSON, any bad value. The caller
// then parses the record with parseReference, which decides and explains. When ok, the record is
// exactly what parseReference returns, with a nil error; FuzzParseFast checks it.
func parseFast(b []byte, limit int64) (r Record, ok bool) {
	s := scanner{b: b}
	const (
		hasTime = 1 << iota
		hasProtocol
		hasApplication
		hasClient
		hasServer
		hasExporter
		hasInIf
		hasOutIf
		required = hasTime | hasProtocol | hasClient | hasServer
	)
	var seen uint8
	if !s.open() {
		return Record{}, false
	}
	for {
		key, ok := s.key()
		if !ok {
			return Record{}, false
		}
		var bit uint8
		switch string(key) {
		case "time":
			bit = hasTime
			r.Time, ok = s.time()
		case "protocol":
			bit = hasProtocol
			r.Protocol, ok = s.protocol()
		case "application":
			bit = hasApplication
			r.Application, ok = s.application()
		case "client":
			bit = hasClient
			r.Client, ok = s.endpoint()
		case "server":
			bit = hasServer
			r.Server, ok = s.endpoint()
		case "exporter":
			bit = hasExporter
			r.Exporter, ok = s.addr()
			ok = ok && r.Exporter != netip.IPv6Unspecified()
		case "in_if":
			bit = hasInIf
			r.InIf, ok = s.uint32()
		case "out_if":
			bit = hasOutIf
			r.OutIf, ok = s.uint32()
		}
		if bit == 0 || !ok || seen&bit != 0 {
			return Record{}, false
		}
		seen |= bit
		if more, ok := s.next(); !ok {
			return Record{}, false
		} else if !more {
			break
		}
	}
	s.space()
	if s.i != len(s.b) || seen&required != required || r.Time > limit {
		return Record{}, false
	}
	if r.Application == "" {
		r.Application = Application(r.Protocol, r.Server.Port)
	}
	return r, true
}

// scanner reads the JSON of one record; i is the offset of the next byte.
type scanner struct {
	b []byte
	i int
}

// space skips JSON white space.
func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// open reads the '{' that starts an object with at least one member.
func (s *scanner) open() bool {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	s.i++
	return true
}

// key reads a member name and the ':' after it, and the white space around them.
func (s *scanner) key() ([]byte, bool) {
	s.space()
	k, ok := s.str()
	if !ok {
		return nil, false
	}
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != ':' {
		return nil, false
	}
	s.i++
	s.space()
	return k, true
}

// next reads the ',' or '}' after a member value: more is true after ','.
func (s *scanner) next() (more, ok bool) {
	s.space()
	if s.i >= len(s.b) {
		return false, false
	}
	c := s.b[s.i]
	s.i++
	return c == ',', c == ',' || c == '}'
}

// str reads a string of printable ASCII without escapes and returns what is between the quotes.
func (s *scanner) str() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], true
		case c < 0x20 || c > 0x7e || c == '\\':
			return nil, false
		}
	}
	return nil, false
}

// isString says whether a string starts at the next byte.
func (s *scanner) isString() bool { return s.i < len(s.b) && s.b[s.i] == '"' }

// uint reads an integer of at most 18 digits without sign, fraction or exponent.
func (s *scanner) uint() (uint64, bool) {
	start := s.i
	var n uint64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		n = n*10 + uint64(s.b[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || digits > 18 || (digits > 1 && s.b[start] == '0') {
		return 0, false
	}
	if s.i < len(s.b) {
		if c := s.b[s.i]; c == '.' || c == 'e' || c == 'E' {
			return 0, false
		}
	}
	return n, true
}

// uint32 reads an integer 0..2^32-1 without sign, fraction or exponent.
func (s *scanner) uint32() (uint32, bool) {
	n, ok := s.uint()
	return uint32(n), ok && n <= math.MaxUint32
}

// time reads Unix seconds or an RFC 3339 time, at least 1970.
func (s *scanner) time() (int64, bool) {
	if !s.isString() {
		n, ok := s.uint()
		return int64(n), ok
	}
	v, ok := s.str()
	if !ok {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(v))
	if err != nil || t.Unix() < 0 {
		return 0, false
	}
	return t.Unix(), true
}

// protocol reads a protocol name or number.
func (s *scanner) protocol() (uint8, bool) {
	if !s.isString() {
		n, ok := s.uint()
		return uint8(n), ok && n <= 255
	}
	v, ok := s.str()
	if !ok {
		return 0, false
	}
	switch string(v) {
	case "tcp":
		return TCP, true
	case "udp":
		return UDP, true
	case "icmp":
		return ICMP, true
	}
	p, err := ParseProtocol(string(v))
	return p, err == nil
}

// application reads an application name, lower-cased, or null; "" for null or an empty name.
func (s *scanner) application() (string, bool) {
	if !s.isString() {
		if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
			s.i += 4
			return "", true
		}
		return "", false
	}
	v, ok := s.str()
	if !ok || len(v) > MaxApplicationLen {
		return "", false
	}
	var buf [MaxApplicationLen]byte
	lower := buf[:len(v)]
	for i, c := range v {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	if name, ok := knownApplications[string(lower)]; ok {
		return name, true
	}
	name := string(lower)
	return name, applicationProblem(name) == "" || name == ""
}

// knownApplications holds the application names Application returns, to share their strings.
var knownApplications = func() map[string]string {
	m := map[string]string{Unknown: Unknown}
	for _, names := range []map[uint16]string{tcpApplications, udpApplications} {
		for _, name := range names {
			m[name] = name
		}
	}
	for _, name := range protocolNames {
		m[name] = name
	}
	return m
}()

// endpoint reads the object of a client or server.
func (s *scanner) endpoint() (Endpoint, bool) {
	const (
		hasIP = 1 << iota
		hasPort
		hasBytes
		hasPackets
	)
	var e Endpoint
	var seen uint8
	if !s.open() {
		return Endpoint{}, false
	}
	for {
		key, ok := s.key()
		if !ok {
			return Endpoint{}, false
		}
		var bit uint8
		switch string(key) {
		case "ip":
			bit = hasIP
			e.IP, ok = s.addr()
		case "port":
			bit = hasPort
			var n uint64
			n, ok = s.uint()
			ok = ok && n <= 65535
			e.Port = uint16(n)
		case "bytes":
			bit = hasBytes
			e.Bytes, ok = s.uint()
			ok = ok && e.Bytes <= MaxCount
		case "packets":
			bit = hasPackets
			e.Packets, ok = s.uint()
			ok = ok && e.Packets <= MaxCount
		}
		if bit == 0 || !ok || seen&bit != 0 {
			return Endpoint{}, false
		}
		seen |= bit
		if more, ok := s.next(); !ok {
			return Endpoint{}, false
		} else if !more {
			break
		}
	}
	return e, seen&hasIP != 0
}

// addr reads an IPv4 or IPv6 address without zone; IPv4-mapped addresses are unmapped.
func (s *scanner) addr() (netip.Addr, bool) {
	v, ok := s.str()
	if !ok {
		return netip.Addr{}, false
	}
	if a, ok := ipv4(v); ok {
		return a, true
	}
	a, err := netip.ParseAddr(string(v))
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// ipv4 parses a dotted-quad IPv4 address as netip.ParseAddr does: four decimal fields 0..255
// without leading zeros.
func ipv4(v []byte) (netip.Addr, bool) {
	var ip [4]byte
	field, digits, val := 0, 0, 0
	for i := 0; i <= len(v); i++ {
		if i == len(v) || v[i] == '.' {
			if digits == 0 || field > 3 {
				return netip.Addr{}, false
			}
			ip[field] = byte(val)
			field, digits, val = field+1, 0, 0
			continue
		}
		c := v[i]
		if c < '0' || c > '9' || (digits == 1 && val == 0) {
			return netip.Addr{}, false
		}
		val = val*10 + int(c-'0')
		digits++
		if val > 255 {
			return netip.Addr{}, false
		}
	}
	if field != 4 {
		return netip.Addr{}, false
	}
	return netip.AddrFrom4(ip), true
}
