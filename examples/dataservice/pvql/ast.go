package pvql

import (
	"math"
	"strconv"
)

// Statement is one parsed statement of a query expression. Its parts are read by the engine;
// Values and Keys describe the columns of its result.
type Statement struct {
	values []value
	keys   []key
	layer  layer
	where  filter // nil: every record
	having filter // nil: every group
	top    int64  // 0: no TOP
	since  *timeSpec
	until  *timeSpec
}

// Values returns a label for each value of the statement, in order: its AS alias, or else its
// expression in canonical form ("traffic", "client.traffic / traffic").
func (s *Statement) Values() []string {
	out := make([]string, len(s.values))
	for i, v := range s.values {
		out[i] = v.alias
		if v.alias == "" {
			out[i] = exprString(v.x, 0, false)
		}
	}
	return out
}

// Keys returns the statement's BY keys in order ("client.ip", "time(60)"); none without BY.
func (s *Statement) Keys() []string {
	out := make([]string, len(s.keys))
	for i, k := range s.keys {
		out[i] = k.String()
	}
	return out
}

// value is one requested value: an arithmetic expression over metrics, with an optional alias.
type value struct {
	x     expr
	alias string
}

// expr is an arithmetic expression: numberExpr, metric or *binaryExpr.
type expr interface{}

type numberExpr float64

type binaryExpr struct {
	op   byte // '+', '-', '*', '/'
	l, r expr
}

// exprString writes e in canonical form, with parentheses only where precedence needs
// them: around a lower-precedence child, and around an equal-precedence right child.
func exprString(e expr, parent int, right bool) string {
	switch e := e.(type) {
	case numberExpr:
		return strconv.FormatFloat(float64(e), 'f', -1, 64)
	case metric:
		return metrics[e].name
	case *binaryExpr:
		prec := 1
		if e.op == '*' || e.op == '/' {
			prec = 2
		}
		s := exprString(e.l, prec, false) + " " + string(e.op) + " " + exprString(e.r, prec, true)
		if prec < parent || prec == parent && right {
			return "(" + s + ")"
		}
		return s
	}
	return ""
}

// metric is a summable quantity of the records.
type metric int

const (
	mTraffic metric = iota
	mClientTraffic
	mServerTraffic
	mPackets
	mClientPackets
	mServerPackets
	mRecords
)

// sum is one base sum aggregated per group in SQL; metrics are sums of these.
type sum int

const (
	sClientBytes sum = iota
	sServerBytes
	sClientPackets
	sServerPackets
	sRecords
	numSums
)

var sumSQL = [numSums]string{
	sClientBytes:   "CAST(SUM(client_bytes) AS UBIGINT)",
	sServerBytes:   "CAST(SUM(server_bytes) AS UBIGINT)",
	sClientPackets: "CAST(SUM(client_packets) AS UBIGINT)",
	sServerPackets: "CAST(SUM(server_packets) AS UBIGINT)",
	sRecords:       "CAST(COUNT(*) AS UBIGINT)",
}

var metrics = []struct {
	name string
	sums []sum
	typ  string
	desc string
}{
	mTraffic:       {"traffic", []sum{sClientBytes, sServerBytes}, "bytes", "Bytes sent by both sides (client.traffic + server.traffic)."},
	mClientTraffic: {"client.traffic", []sum{sClientBytes}, "bytes", "Bytes sent by the client."},
	mServerTraffic: {"server.traffic", []sum{sServerBytes}, "bytes", "Bytes sent by the server."},
	mPackets:       {"packets", []sum{sClientPackets, sServerPackets}, "packets", "Packets sent by both sides (client.packets + server.packets)."},
	mClientPackets: {"client.packets", []sum{sClientPackets}, "packets", "Packets sent by the client."},
	mServerPackets: {"server.packets", []sum{sServerPackets}, "packets", "Packets sent by the server."},
	mRecords:       {"records", []sum{sRecords}, "count", "Number of records."},
}

// key is a grouping key of BY; n is the bucket width of time(N).
type key struct {
	kind keyKind
	n    int64
}

func (k key) String() string {
	if k.kind == kTime {
		return "time(" + strconv.FormatInt(k.n, 10) + ")"
	}
	return keyKinds[k.kind].name
}

type keyKind int

const (
	kTime keyKind = iota
	kClientIP
	kServerIP
	kClientPort
	kServerPort
	kProtocol
	kApplication
)

var keyKinds = []struct {
	name string
	typ  string
	desc string
}{
	kTime:        {"time", "time", "time(N): buckets of N seconds; the point T (a multiple of N, Unix seconds) covers [T-N, T). Not usable in WHERE."},
	kClientIP:    {"client.ip", "ip", "Address of the client (IPv4 or IPv6); WHERE accepts =, !=, <, <=, >, >=, IN (list) and IN CIDR."},
	kServerIP:    {"server.ip", "ip", "Address of the server (IPv4 or IPv6); WHERE accepts =, !=, <, <=, >, >=, IN (list) and IN CIDR."},
	kClientPort:  {"client.port", "port", "Port of the client (0-65535)."},
	kServerPort:  {"server.port", "port", "Port of the server (0-65535)."},
	kProtocol:    {"protocol", "protocol", "IP protocol: tcp, udp, icmp, ... or a number (0-255); results name the known ones."},
	kApplication: {"application", "string", "Application name (https, dns, ...; unknown when not recognised)."},
}

// layer restricts the records a statement reads (FROM).
type layer int

const (
	lTransport layer = iota
	lTCP
	lUDP
	lICMP
)

var layers = []struct {
	name     string
	protocol int64 // -1: every protocol
	desc     string
}{
	lTransport: {"transport", -1, "Every record (the default)."},
	lTCP:       {"tcp", 6, "TCP records (protocol 6)."},
	lUDP:       {"udp", 17, "UDP records (protocol 17)."},
	lICMP:      {"icmp", 1, "ICMP records (protocol 1)."},
}

// timeSpec is a SINCE or UNTIL bound: absolute Unix seconds, or relative to now.
type timeSpec struct {
	relative bool
	seconds  int64
}

// resolve returns the bound in Unix seconds for the given now, saturating instead of
// overflowing.
func (t *timeSpec) resolve(now int64) int64 {
	if !t.relative {
		return t.seconds
	}
	switch r := now + t.seconds; {
	case t.seconds > 0 && r < now:
		return math.MaxInt64
	case t.seconds < 0 && r > now:
		return math.MinInt64
	default:
		return r
	}
}

// filter is a boolean condition: *andFilter, *orFilter, *notFilter, *fieldFilter (WHERE) or
// *valueFilter (HAVING).
type filter interface{}

type andFilter struct{ terms []filter }

type orFilter struct{ terms []filter }

type notFilter struct{ x filter }

// op is a comparison operator; opIn tests membership in a list of literals (or CIDR ranges).
type op int

const (
	opEq op = iota
	opNe
	opLt
	opLe
	opGt
	opGe
	opIn
)

var opSQL = [...]string{opEq: "=", opNe: "<>", opLt: "<", opLe: "<=", opGt: ">", opGe: ">="}

// fieldFilter compares a record field with literals (WHERE).
type fieldFilter struct {
	field keyKind
	op    op
	lits  []literal // one, or the IN list
}

// literal is a typed WHERE operand. For an address lo == hi; a CIDR is the range [lo, hi].
type literal struct {
	lo, hi addr128
	n      int64  // port or protocol number
	s      string // application
}

// addr128 is an IPv6 address (IPv4 mapped as ::ffff:a.b.c.d) as two 64-bit halves.
type addr128 struct{ hi, lo uint64 }

// valueFilter compares a value expression with numbers (HAVING).
type valueFilter struct {
	x    expr
	op   op
	nums []float64
}
