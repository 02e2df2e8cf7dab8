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
	// family is the shape without the literal of eq, the term `k = literal` that statements of
	// one family differ in (see Family); eq is nil when there is none, and family the shape.
	family string
	eq     *fieldFilter
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
	case *quantileExpr:
		return quantileString(e)
	case queueValue:
		return queueValues[e].name
	case extremeExpr:
		return extremeName(e)
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
	mRTT
	mClientRTT
	mServerRTT
	mCT
	mSRT
	mDTT
	mEURT
	mRetrans
	mClientRetrans
	mServerRetrans
	mResets
	mClientZeroWindows
	mServerZeroWindows
)

// timePart is one average a time metric adds up: the sum of its samples in microseconds and
// their count.
type timePart struct{ sum, samples records.Sum }

var (
	clientRTT = timePart{records.SumClientRTT, records.SumClientRTTSamples}
	serverRTT = timePart{records.SumServerRTT, records.SumServerRTTSamples}
	ctPart    = timePart{records.SumCT, records.SumCTSamples}
	srtPart   = timePart{records.SumSRT, records.SumSRTSamples}
	dttPart   = timePart{records.SumDTT, records.SumDTTSamples}
)

// timeMetric describes a time metric, the sum of the sample-weighted averages of parts
// (null when a part has no sample), in seconds.
func timeMetric(name, desc string, parts ...timePart) metricDesc {
	m := metricDesc{name: name, typ: "seconds", desc: desc, since: "1.3", times: parts}
	for _, p := range parts {
		m.sums = append(m.sums, p.sum, p.samples)
	}
	return m
}

// metricDesc describes one metric: its name, the base sums it reads, its type (unit) and
// description, the API version it appeared in ("" for 1.0), and for a time metric its parts.
type metricDesc struct {
	name  string
	sums  []records.Sum
	typ   string
	desc  string
	since string
	// times, for a time metric, are the averages it adds up; a count metric adds up sums.
	times []timePart
}

var metrics = []metricDesc{
	mTraffic:       {"traffic", []records.Sum{records.SumClientBytes, records.SumServerBytes}, "bytes", "Bytes sent by both sides (client.traffic + server.traffic).", "", nil},
	mClientTraffic: {"client.traffic", []records.Sum{records.SumClientBytes}, "bytes", "Bytes sent by the client.", "", nil},
	mServerTraffic: {"server.traffic", []records.Sum{records.SumServerBytes}, "bytes", "Bytes sent by the server.", "", nil},
	mPackets:       {"packets", []records.Sum{records.SumClientPackets, records.SumServerPackets}, "packets", "Packets sent by both sides (client.packets + server.packets).", "", nil},
	mClientPackets: {"client.packets", []records.Sum{records.SumClientPackets}, "packets", "Packets sent by the client.", "", nil},
	mServerPackets: {"server.packets", []records.Sum{records.SumServerPackets}, "packets", "Packets sent by the server.", "", nil},
	mRecords:       {"records", []records.Sum{records.SumRecords}, "count", "Number of records: FROM http requests, FROM dns queries, FROM tls handshakes.", "", nil},
	// The capture probe's metrics (records of other sources have no samples: null, or 0 counts).
	mRTT:               timeMetric("rtt", "Network round trip between client and server (client.rtt + server.rtt), in seconds; null without samples on either side.", clientRTT, serverRTT),
	mClientRTT:         timeMetric("client.rtt", "Round trip between the probe and the client, in seconds (average over the group's samples); null without samples.", clientRTT),
	mServerRTT:         timeMetric("server.rtt", "Round trip between the probe and the server, in seconds (average over the group's samples); null without samples.", serverRTT),
	mCT:                timeMetric("ct", "Connection time, from the client's SYN to its ACK of the SYN-ACK, in seconds (average); null without samples.", ctPart),
	mSRT:               timeMetric("srt", "Server response time, from the last packet of a request to the first of its response, in seconds (average); null without samples.", srtPart),
	mDTT:               timeMetric("dtt", "Data transfer time of a response, from its first to its last packet, in seconds (average); null without samples.", dttPart),
	mEURT:              timeMetric("eurt", "End-user response time, rtt + srt + dtt, in seconds; null when one of them is.", clientRTT, serverRTT, srtPart, dttPart),
	mRetrans:           {"retrans", []records.Sum{records.SumClientRetrans, records.SumServerRetrans}, "count", "Retransmitted TCP segments of both sides (client.retrans + server.retrans).", "1.3", nil},
	mClientRetrans:     {"client.retrans", []records.Sum{records.SumClientRetrans}, "count", "Retransmitted TCP segments of the client.", "1.3", nil},
	mServerRetrans:     {"server.retrans", []records.Sum{records.SumServerRetrans}, "count", "Retransmitted TCP segments of the server.", "1.3", nil},
	mResets:            {"resets", []records.Sum{records.SumResets}, "count", "TCP packets with RST set, from either side.", "1.3", nil},
	mClientZeroWindows: {"client.zero_windows", []records.Sum{records.SumClientZeroWindows}, "count", "TCP packets of the client that advertised a zero receive window (its application did not read).", "1.3", nil},
	mServerZeroWindows: {"server.zero_windows", []records.Sum{records.SumServerZeroWindows}, "count", "TCP packets of the server that advertised a zero receive window.", "1.3", nil},
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
	lHTTP
	lDNS
	lTLS
	lQueue
)

var layers = []struct {
	name     string
	protocol int64 // -1: every protocol
	desc     string
	layer    records.Layer // the records read (layers.go)
	since    string
}{
	lTransport: {"transport", -1, "Every record of the transport: one per conversation and time slice (the default).", records.LayerTransport, ""},
	lTCP:       {"tcp", 6, "TCP records of the transport (protocol 6).", records.LayerTransport, ""},
	lUDP:       {"udp", 17, "UDP records of the transport (protocol 17).", records.LayerTransport, ""},
	lICMP:      {"icmp", 1, "ICMP records of the transport (protocol 1).", records.LayerTransport, ""},
	lHTTP:      {"http", -1, "One record per HTTP/1.x request and its response seen in clear by the probe: records counts requests; srt is the request's last byte to the response's first, dtt the response's first to last byte. Keys http.*, and the transport's.", records.LayerHTTP, "1.4"},
	lDNS:       {"dns", -1, "One record per DNS query over UDP or TCP: records counts queries; srt is the query to its answer (null when unanswered). Keys dns.*, and the transport's.", records.LayerDNS, "1.4"},
	lTLS:       {"tls", -1, "One record per TLS handshake: records counts handshakes; ct is the handshake's time (ClientHello to the server's Finished or first application data); server.name is the SNI. Keys tls.*, and the transport's.", records.LayerTLS, "1.4"},
	lQueue:     {"queue", -1, "This node's queue (-queue), not the records: its values now (queue.go).", records.LayerTransport, ""},
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
	// at is where the literal of a comparison other than IN lies in the expression (Family
	// cuts it out).
	at [2]int
}

// literal is a typed WHERE operand in the form its column holds; from == to but for a CIDR,
// the address range [from, to].
type literal struct {
	from, to records.Value
	// nested is a zone prefix: the zone from.Str and every zone nested under it.
	nested bool
}

// valueFilter compares a value expression with numbers (HAVING).
type valueFilter struct {
	x    expr
	op   op
	nums []float64
}
