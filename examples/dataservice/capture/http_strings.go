package capture

import (
	"sync"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// HTTPOther is the path of a record past Config.MaxHTTPPaths, the method of one past
// HTTPMaxMethods, the DNS query name of one past Config.MaxDNSNames and the TLS issuer of one
// past Config.MaxTLSIssuers: whoever sends packets chooses them.
const HTTPOther = "{other}"

// httpCommon are the methods that need no look-up.
var httpCommon = [...]string{"GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH", "CONNECT"}

// HTTPMaxMethods bounds the distinct methods of one hour's records (httpCommon's aside).
const HTTPMaxMethods = 64

// HTTPStrings bounds the distinct methods, hosts and paths of one hour's HTTP records, and
// makes each string once an hour: the probe keeps one per source, the flow collector one per
// exporter, so that whoever sends requests cannot grow the store's dictionaries and the
// rollups' groups without end. Past HTTPMaxMethods methods a record's method reads HTTPOther,
// past its hosts its host is "", past its paths its path reads HTTPOther. An hour's strings
// are forgotten at the first record of a later hour; a record of an earlier hour counts in the
// latest hour's, so that records alternating between hours find no more room. It is not safe
// for concurrent use.
type HTTPStrings struct {
	methods, hosts, paths interned
}

// NewHTTPStrings returns the bounds of maxHosts hosts and maxPaths paths an hour; budget, when
// not nil, also bounds the bytes of the strings it and the others sharing budget make an hour.
func NewHTTPStrings(maxHosts, maxPaths int, budget *HTTPBudget) *HTTPStrings {
	s := &HTTPStrings{}
	s.init(maxHosts, maxPaths)
	s.methods.budget, s.hosts.budget, s.paths.budget = budget, budget, budget
	return s
}

// HTTPBudget bounds the bytes of the strings that several HTTPStrings make in one hour
// together: the flow collector's exporters share one, so that a thousand exporters (spoofed
// sources among them) cannot each fill their own bounds. A string costs its length and
// HTTPStringCost. An hour's budget is renewed at the first string of a later hour; the strings
// of earlier hours stay in the tables that hold them until those see a later hour or are
// dropped, so the memory they take is a small multiple of the budget (the collector's
// exporters are forgotten after an hour of silence). It is safe for concurrent use.
type HTTPBudget struct {
	mu        sync.Mutex
	hour      int64
	used, max int64
}

// HTTPStringCost is what a budget counts for a string beside its bytes: its map entry.
const HTTPStringCost = 64

// NewHTTPBudget returns a budget of max bytes an hour.
func NewHTTPBudget(max int64) *HTTPBudget { return &HTTPBudget{max: max} }

// take counts a new string of n bytes in the hour numbered hour, and false when the hour's
// budget cannot hold it. A nil budget holds everything.
func (b *HTTPBudget) take(hour int64, n int) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if hour > b.hour {
		b.hour, b.used = hour, 0
	}
	cost := int64(n) + HTTPStringCost
	if b.used+cost > b.max {
		return false
	}
	b.used += cost
	return true
}

func (s *HTTPStrings) init(maxHosts, maxPaths int) {
	s.methods = interned{m: map[string]string{}, max: HTTPMaxMethods}
	s.hosts = interned{m: map[string]string{}, max: maxHosts}
	s.paths = interned{m: map[string]string{}, max: maxPaths}
}

// Bound sets the method, host and path of h, a record of the hour numbered hour (its Unix time
// / 3600), to the strings s holds (paths already folded, as FoldPath does), and returns how
// many of those three it left out.
func (s *HTTPStrings) Bound(hour int64, h *records.HTTP) (leftOut int) {
	if h.Method != "" {
		m := internMethod(s, hour, h.Method)
		if m == HTTPOther && h.Method != HTTPOther {
			leftOut++
		}
		h.Method = m
	}
	if h.Host != "" {
		var ok bool
		if h.Host, ok = intern(&s.hosts, hour, h.Host); !ok {
			leftOut++
		}
	}
	if h.Path != "" {
		var ok bool
		if h.Path, ok = intern(&s.paths, hour, h.Path); !ok {
			h.Path = HTTPOther
			leftOut++
		}
	}
	return leftOut
}

// httpTable is a table's share of the HTTP decoding: the states and header buffers it lends
// to conversations, and the strings of one hour's records.
type httpTable struct {
	free    []*httpConv
	bufs    []*[HTTPMaxHeader]byte
	lent    int // buffers lent
	strings HTTPStrings
	scratch [records.MaxPathLen]byte
	off     bool // no HTTP decoding (benchmarks)
}

func (h *httpTable) init(cfg *Config) {
	h.strings.init(cfg.MaxServerNames, cfg.MaxHTTPPaths)
}

// buffer lends a header buffer; nil when HTTPMaxBuffers are lent.
func (h *httpTable) buffer() *[HTTPMaxHeader]byte {
	if h.lent == HTTPMaxBuffers {
		return nil
	}
	h.lent++
	if n := len(h.bufs); n > 0 {
		b := h.bufs[n-1]
		h.bufs = h.bufs[:n-1]
		return b
	}
	return new([HTTPMaxHeader]byte)
}

func (h *httpTable) putBuffer(b *[HTTPMaxHeader]byte) {
	h.lent--
	h.bufs = append(h.bufs, b)
}

// interned is the distinct strings of one hour's records, at most max: a string is made once
// an hour, and the records past max read another.
type interned struct {
	m      map[string]string
	max    int
	hour   int64
	budget *HTTPBudget // nil: none but max
}

// intern returns b as a string, and false when b is new and the latest hour has max strings
// already (HTTPStrings says which hour a record counts in).
func intern[T string | []byte](s *interned, hour int64, b T) (string, bool) {
	if hour > s.hour {
		clear(s.m)
		s.hour = hour
	}
	if v, ok := s.m[string(b)]; ok {
		return v, true
	}
	if len(s.m) >= s.max || !s.budget.take(s.hour, len(b)) {
		return "", false
	}
	v := string(b)
	s.m[v] = v
	return v, true
}

// Names bounds the distinct values of one string key of one hour's records (a DNS query name,
// a TLS issuer), as HTTPStrings bounds a request's: past its max an hour, or past its budget,
// a new value reads HTTPOther. The probe keeps one per key and source, the flow collector one
// per exporter. It is not safe for concurrent use.
type Names struct{ s interned }

// NewNames returns the bound of max values an hour; budget as NewHTTPStrings's.
func NewNames(max int, budget *HTTPBudget) *Names {
	return &Names{s: interned{m: map[string]string{}, max: max, budget: budget}}
}

// Bound returns v as the hour's records share it (its hour numbered as HTTPStrings's), or
// HTTPOther and false past the bounds.
func (n *Names) Bound(hour int64, v string) (string, bool) {
	if s, ok := intern(&n.s, hour, v); ok {
		return s, true
	}
	return HTTPOther, false
}

// internMethod is a record's method: as sent, past HTTPMaxMethods an hour HTTPOther.
func internMethod[T string | []byte](s *HTTPStrings, hour int64, b T) string {
	for _, m := range httpCommon {
		if string(b) == m {
			return m
		}
	}
	if v, ok := intern(&s.methods, hour, b); ok {
		return v
	}
	return HTTPOther
}

// httpHost is the record's host: the Host header (or the target's authority) without its
// port, lower case, cut at records.MaxHostLen; "" when absent, when it holds bytes no host
// name has, or past Config.MaxServerNames distinct hosts an hour (Stats.NamesLeftOut).
func (t *Table) httpHost(h *httpConv, hour int64, v []byte) string {
	if i := lastByte(v, ':'); i >= 0 && lastByte(v, ']') < i {
		v = v[:i]
	}
	if len(v) > 1 && v[0] == '[' && v[len(v)-1] == ']' {
		v = v[1 : len(v)-1]
	}
	b := t.httpT.scratch[:0]
	for _, c := range v[:min(len(v), records.MaxHostLen)] {
		if c <= ' ' || c >= 0x7f {
			return ""
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	if len(b) == 0 {
		return ""
	}
	if h.hostHour == hour+1 && string(b) == h.host {
		return h.host
	}
	s, ok := intern(&t.httpT.strings.hosts, hour, b)
	if !ok {
		t.stats.NamesLeftOut++
		return ""
	}
	h.host, h.hostHour = s, hour+1
	return s
}

// httpPath is the record's path: folded (foldPath), cut at records.MaxPathLen, and past
// Config.MaxHTTPPaths distinct paths an hour HTTPOther (Stats.HTTPPathsLeftOut).
func (t *Table) httpPath(hour int64, p []byte) string {
	if len(p) == 0 {
		return ""
	}
	s, ok := intern(&t.httpT.strings.paths, hour, foldPath(t.httpT.scratch[:0], p))
	if !ok {
		t.stats.HTTPPathsLeftOut++
		return HTTPOther
	}
	return s
}

func lastByte(b []byte, c byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// foldPath appends p to dst (of capacity records.MaxPathLen, never exceeded) with each segment
// that is an id folded: digits only read {n}; a UUID, a hex string of 8 or more with a digit,
// or a base64-like token of 16 or more (letters of both cases and digits, '-', '_') read
// {id}. Bytes outside printable ASCII are percent-encoded.
func foldPath(dst, p []byte) []byte {
	add := func(c byte) {
		if len(dst) < cap(dst) {
			dst = append(dst, c)
		}
	}
	addS := func(s string) {
		for i := range len(s) {
			add(s[i])
		}
	}
	for {
		seg := p
		i := indexByte(p, '/')
		if i >= 0 {
			seg = p[:i]
		}
		switch idKind(seg) {
		case 'n':
			addS("{n}")
		case 'i':
			addS("{id}")
		default:
			for _, c := range seg {
				if c <= ' ' || c >= 0x7f {
					const hex = "0123456789ABCDEF"
					add('%')
					add(hex[c>>4])
					add(hex[c&15])
					continue
				}
				add(c)
			}
		}
		if i < 0 {
			return dst
		}
		add('/')
		p = p[i+1:]
	}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// idKind says whether a path segment is a number ('n'), an id ('i') or neither (0).
func idKind(s []byte) byte {
	if len(s) == 0 {
		return 0
	}
	var digits, lower, upper, hex, other int
	for _, c := range s {
		switch {
		case '0' <= c && c <= '9':
			digits++
		case 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F':
			hex++
			if c >= 'a' {
				lower++
			} else {
				upper++
			}
		case 'g' <= c && c <= 'z':
			lower++
		case 'G' <= c && c <= 'Z':
			upper++
		case c == '-' || c == '_':
		default:
			other++
		}
	}
	switch {
	case other > 0:
		return 0
	case digits == len(s):
		return 'n'
	case isUUID(s):
		return 'i'
	case len(s) >= 8 && digits > 0 && digits+hex == len(s):
		return 'i'
	case len(s) >= 16 && digits > 0 && lower > 0 && upper > 0:
		return 'i'
	}
	return 0
}

// isUUID says whether s is 8-4-4-4-12 hex digits.
func isUUID(s []byte) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
