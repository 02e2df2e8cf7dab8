package pvql

import (
	"math"
	"slices"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Percentiles of a time metric (API 1.3):
//
//	p50(m), p95(m), p99(m), max(m)
//
// m is a time metric whose samples the records keep a histogram of: client.rtt, server.rtt,
// ct, srt or dtt. The value, in seconds, is that of the histogram bucket (package histogram:
// log-scaled, within 2 % of every value it holds) holding the sample of rank ceil(q·n) among
// the group's n samples (nearest rank; max is rank n), from the group's histograms merged
// bucket by bucket: the same on every engine and rollup, whatever order they merged them in.
// null for a group without samples. rtt and eurt are sums of several times, whose
// distribution the histograms of each do not give: p95(rtt) is a syntax error naming the
// metrics that have one.
type quantileExpr struct {
	fn int // index in quantileFuncs
	m  metric
	// vals holds, at each answer, each group's value by the address of its sums (groups never
	// move): see prepareQuantiles.
	vals map[*sums]float64
}

// quantileFuncs are the percentile functions: name, rank fraction, description.
var quantileFuncs = []struct {
	name string
	q    float64
	desc string
}{
	{"p50", 0.50, "Median of a time metric's samples (p50(srt)), in seconds within 2 %; null without samples."},
	{"p95", 0.95, "95th percentile of a time metric's samples (p95(srt)), in seconds within 2 %; null without samples."},
	{"p99", 0.99, "99th percentile of a time metric's samples (p99(srt)), in seconds within 2 %; null without samples."},
	{"max", 1, "Largest sample of a time metric (max(srt)), in seconds within 2 %; null without samples."},
}

// histColumns are the time metrics whose samples the records keep a histogram of.
var histColumns = map[metric]records.Column{mClientRTT: records.ColClientRTTHist, mServerRTT: records.ColServerRTTHist,
	mCT: records.ColCTHist, mSRT: records.ColSRTHist, mDTT: records.ColDTTHist}

// expQuantile is what a percentile function takes.
const expQuantile = "a time metric with a distribution: client.rtt, server.rtt, ct, srt or dtt"

// quantileFunc returns the percentile function t names when "(" follows it.
func (p *parser) quantileFunc(t token) (int, bool) {
	if t.kind != tokIdent || p.peek().kind != tokLParen {
		return 0, false
	}
	i := slices.IndexFunc(quantileFuncs, func(f struct {
		name string
		q    float64
		desc string
	}) bool {
		return strings.EqualFold(f.name, t.text)
	})
	return i, i >= 0
}

// quantile parses the rest of p95(m) after its name.
func (p *parser) quantile(name token, fn int) (expr, error) {
	p.next() // "("
	t := p.next()
	m, ok := metricByName(t.text)
	if t.kind != tokIdent || !ok {
		return nil, p.errorAt(t, "", expQuantile)
	}
	if _, ok := histColumns[m]; !ok {
		return nil, p.errorAt(t, quantileFuncs[fn].name+" of "+metrics[m].name+" is not kept (percentiles of a sum of times are not those of its parts)", expQuantile)
	}
	if r := p.next(); r.kind != tokRParen {
		return nil, p.errorAt(r, "", "\")\"")
	}
	return &quantileExpr{fn: fn, m: m}, nil
}

func containsQuantile(x expr) bool {
	switch x := x.(type) {
	case *quantileExpr:
		return true
	case *binaryExpr:
		return containsQuantile(x.l) || containsQuantile(x.r)
	}
	return false
}

// quantileString renders q in canonical form.
func quantileString(q *quantileExpr) string {
	return quantileFuncs[q.fn].name + "(" + metrics[q.m].name + ")"
}

// quantiles lists the statement's percentile functions, in its values and HAVING.
func (st *Statement) quantiles() []*quantileExpr { return exprsOf[*quantileExpr](st) }

// hasQuantiles reports whether a statement of stmts has a percentile: a live answer then
// answers in full each time, as the histograms it would keep per group and bucket are large.
func hasQuantiles(stmts []*Statement) bool {
	return slices.ContainsFunc(stmts, func(st *Statement) bool { return len(st.quantiles()) > 0 })
}

// neededHists lists the histogram columns of the statement's percentiles, in column order.
func neededHists(st *Statement) []records.Column {
	var out []records.Column
	for _, q := range st.quantiles() {
		out = append(out, histColumns[q.m])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// prepareQuantiles computes each percentile of the statement for each group, from the
// histograms its rows gave (group.hists, in the order of the query's Hists).
func (s *state) prepareQuantiles() {
	qs := s.st.quantiles()
	if len(qs) == 0 {
		return
	}
	for _, q := range qs {
		q.vals = make(map[*sums]float64, s.groups.len())
	}
	for i := range s.groups.len() {
		gr := s.groups.group(i)
		s.quantilesOf(qs, &gr.sums, gr.hists)
	}
}

// quantilesOf sets the value of each of qs for the group of sums sm and histograms hs.
func (s *state) quantilesOf(qs []*quantileExpr, sm *sums, hs []histogram.Histogram) {
	for _, q := range qs {
		v := math.NaN()
		if j := slices.Index(s.query.Hists, histColumns[q.m]); j >= 0 && j < len(hs) {
			if x, ok := hs[j].Quantile(quantileFuncs[q.fn].q); ok {
				v = x
			}
		}
		q.vals[sm] = v
	}
}

// evalQuantile is the value of a percentile for the group whose sums are s.
func evalQuantile(q *quantileExpr, s *sums) float64 {
	if v, ok := q.vals[s]; ok {
		return v
	}
	return math.NaN()
}

// addHists merges a row's histograms into a group's.
func addHists(to *[]histogram.Histogram, from []histogram.Histogram) {
	if len(from) == 0 {
		return
	}
	if *to == nil {
		*to = make([]histogram.Histogram, len(from))
	}
	for i, h := range from {
		(*to)[i].Merge(h)
	}
}
