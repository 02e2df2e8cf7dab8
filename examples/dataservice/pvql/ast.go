package pvql

import (
	"math"
	"strconv"

	"github.com/fnapi/fnapi/examples/dataservice/records"
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
	// shape is the statement's text without its HAVING clause (see Shape); havingAt is where
	// that clause lies in the expression.
	shape    string
	havingAt [2]int
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
	case *baselineExpr:
		return baselineString(e)
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

var metrics = []struct {
	name string
	sums []records.Sum
	typ  string
	desc string
}{
	mTraffic:       {"traffic", []records.Sum{records.SumClientBytes, records.SumServerBytes}, "bytes", "Bytes sent by both sides (client.traffic + server.traffic)."},
	mClientTraffic: {"client.traffic", []records.Sum{records.SumClientBytes}, "bytes", "Bytes sent by the client."},
	mServerTraffic: {"server.traffic", []records.Sum{records.SumServerBytes}, "bytes", "Bytes sent by the server."},
	mPackets:       {"packets", []records.Sum{records.SumClientPackets, records.SumServerPackets}, "packets", "Packets sent by both sides (client.packets + server.packets)."},
	mClientPackets: {"client.packets", []records.Sum{records.SumClientPackets}, "packets", "Packets sent by the client."},
	mServerPackets: {"server.packets", []records.Sum{records.SumServerPackets}, "packets", "Packets sent by the server."},
	mRecords:       {"records", []records.Sum{records.SumRecords}, "count", "Number of records."},
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

// fieldFilter compares a record field with literals (WHERE).
type fieldFilter struct {
	field keyKind
	op    op
	lits  []literal // one, or the IN list
}

// literal is a typed WHERE operand in the form its column holds; from == to but for a CIDR,
// the address range [from, to].
type literal struct {
	from, to records.Value
}

// valueFilter compares a value expression with numbers (HAVING).
type valueFilter struct {
	x    expr
	op   op
	nums []float64
}
