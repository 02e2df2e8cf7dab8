package pvql

import (
	"math"
	"slices"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Extremes of the layer tls (API 1.4):
//
//	min(tls.not_after), max(tls.not_after)
//
// The earliest and the latest expiry, in Unix seconds, of the server certificates a group's
// handshakes showed in clear; null for a group without one (a not_after of 0, unknown, never
// wins the min). Read from the records by the stores' min and max (records.Sum.Extreme), so
// exact on every engine. tls.not_after stays a key too: BY it lists each expiry, and WHERE
// < and > choose among them. Rows are ordered by their first value descending: to list the
// certificates that expire first, lead with 0 - min(tls.not_after), as TOP keeps the largest.
type extremeExpr records.Sum

// extremes are the extreme functions: name, sum, description.
var extremes = []struct {
	name string
	sum  records.Sum
	desc string
}{
	{"min(tls.not_after)", records.SumMinTLSNotAfter, "FROM tls: the earliest expiry, in Unix seconds, of the server certificates a group's handshakes showed in clear (TLS 1.2 and older); null without one. Lead with 0 - min(tls.not_after) to list the certificates that expire first."},
	{"max(tls.not_after)", records.SumMaxTLSNotAfter, "FROM tls: the latest expiry, in Unix seconds, of the server certificates a group's handshakes showed in clear; null without one."},
}

// extreme parses min(tls.not_after) or max(tls.not_after) when t and the tokens after it are
// one; ok is false otherwise (max of a time metric is a percentile).
func (p *parser) extreme(t token) (expr, bool) {
	if t.kind != tokIdent || p.i+2 >= len(p.toks) {
		return nil, false
	}
	arg, end := p.toks[p.i+1], p.toks[p.i+2]
	if p.peek().kind != tokLParen || arg.kind != tokIdent || end.kind != tokRParen {
		return nil, false
	}
	text := strings.ToLower(t.text) + "(" + strings.ToLower(arg.text) + ")"
	i := slices.IndexFunc(extremes, func(e struct {
		name string
		sum  records.Sum
		desc string
	}) bool {
		return e.name == text
	})
	if i < 0 {
		return nil, false
	}
	p.next()
	p.next()
	p.next()
	p.noteLayer(kTLSNotAfter, arg)
	return extremeExpr(extremes[i].sum), true
}

// extremeName is x's canonical form.
func extremeName(x extremeExpr) string {
	for _, e := range extremes {
		if e.sum == records.Sum(x) {
			return e.name
		}
	}
	return ""
}

// evalExtreme is x's value for the group whose sums are s: null (NaN) when 0, unknown.
func evalExtreme(x extremeExpr, s *sums) float64 {
	if v := s[x]; v != 0 {
		return float64(v)
	}
	return math.NaN()
}

// hasExtremes reports whether a statement of stmts has an extreme: a live answer then answers
// in full each time, as an extreme cannot be taken back when a record leaves the window.
func hasExtremes(stmts []*Statement) bool {
	return slices.ContainsFunc(stmts, func(st *Statement) bool { return len(exprsOf[extremeExpr](st)) > 0 })
}

func containsExtreme(x expr) bool {
	found := false
	walkExpr(x, func(x expr) {
		if _, ok := x.(extremeExpr); ok {
			found = true
		}
	})
	return found
}
