package pvql

import (
	"cmp"
	"fmt"
	"math"
	"net/netip"
	"reflect"
	"slices"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// This file holds a straightforward computation of query answers over in-memory records,
// written from the language's description (the package documentation and the service's docs/query-language.md)
// without the engine's code, to check the engine against.

type refSums struct {
	cb, sb, cp, sp, n uint64
	// The capture probe's sums (microseconds and sample counts for times).
	cRTT, cRTTN, sRTT, sRTTN, ct, ctN, srt, srtN, dtt, dttN, cRetrans, sRetrans, resets uint64
	cZero, sZero                                                                        uint64
	// The least non-zero and the greatest tls.not_after of the group's records.
	minExp, maxExp uint64
	// The samples of each time in seconds, as the stores keep them: a record's own, or, for
	// one whose samples came averaged, its average once per sample.
	cRTTH, sRTTH, ctH, srtH, dttH []float64
}

// add adds o to s.
func (s *refSums) add(o refSums) {
	s.cb, s.sb, s.cp, s.sp, s.n = s.cb+o.cb, s.sb+o.sb, s.cp+o.cp, s.sp+o.sp, s.n+o.n
	s.cRTT, s.cRTTN, s.sRTT, s.sRTTN = s.cRTT+o.cRTT, s.cRTTN+o.cRTTN, s.sRTT+o.sRTT, s.sRTTN+o.sRTTN
	s.ct, s.ctN, s.srt, s.srtN, s.dtt, s.dttN = s.ct+o.ct, s.ctN+o.ctN, s.srt+o.srt, s.srtN+o.srtN, s.dtt+o.dtt, s.dttN+o.dttN
	s.cRetrans, s.sRetrans, s.resets = s.cRetrans+o.cRetrans, s.sRetrans+o.sRetrans, s.resets+o.resets
	s.cZero, s.sZero = s.cZero+o.cZero, s.sZero+o.sZero
	if s.minExp == 0 || o.minExp != 0 && o.minExp < s.minExp {
		s.minExp = o.minExp
	}
	s.maxExp = max(s.maxExp, o.maxExp)
	cat := func(a, b []float64) []float64 { return append(slices.Clip(a), b...) }
	s.cRTTH, s.sRTTH, s.ctH, s.srtH, s.dttH = cat(s.cRTTH, o.cRTTH), cat(s.sRTTH, o.sRTTH), cat(s.ctH, o.ctH), cat(s.srtH, o.srtH), cat(s.dttH, o.dttH)
}

// refSamples are the samples of a time as the stores keep them: each, or when the record's
// came averaged (odd times) their average n times.
func refSamples(r *rec, us []uint64, sum, n uint64) []float64 {
	var out []float64
	for _, v := range us {
		if r.time%2 == 0 {
			out = append(out, float64(v)/1e6)
		} else {
			out = append(out, float64(sum)/float64(n)/1e6)
		}
	}
	return out
}

// refQuantile is the percentile q of samples as the language defines it: the value of the
// histogram bucket (index ceil(log_gamma(v / 1 µs)), gamma = 1.02/0.98, 0 up to 1 µs, at most
// 639; value 2 µs·gamma^i/(gamma+1), 0 for bucket 0) that holds the sample of rank
// ceil(q·n); null without samples.
func refQuantile(samples []float64, q float64) float64 {
	if len(samples) == 0 {
		return math.NaN()
	}
	gamma := 1.02 / 0.98
	idx := make([]int, len(samples))
	for i, v := range samples {
		if v > 1e-6 {
			idx[i] = min(max(int(math.Ceil(math.Log(v/1e-6)/math.Log(gamma))), 1), 639)
		}
	}
	slices.Sort(idx)
	rank := max(int(math.Ceil(q*float64(len(idx)))), 1)
	i := idx[rank-1]
	if i == 0 {
		return 0
	}
	return 2 * 1e-6 * math.Pow(gamma, float64(i)) / (gamma + 1)
}

// sumsOf is what one record adds to its group.
func sumsOf(r *rec) refSums {
	return refSums{cb: r.cBytes, sb: r.sBytes, cp: r.cPackets, sp: r.sPackets, n: 1,
		cRTT: r.cRTT, cRTTN: r.cRTTN, sRTT: r.sRTT, sRTTN: r.sRTTN, ct: r.ct, ctN: r.ctN, srt: r.srt, srtN: r.srtN,
		dtt: r.dtt, dttN: r.dttN, cRetrans: r.cRetrans, sRetrans: r.sRetrans, resets: r.resets, cZero: r.cZero, sZero: r.sZero,
		cRTTH: refSamples(r, r.cRTTS, r.cRTT, r.cRTTN), sRTTH: refSamples(r, r.sRTTS, r.sRTT, r.sRTTN), ctH: refSamples(r, r.ctS, r.ct, r.ctN),
		srtH: refSamples(r, r.srtS, r.srt, r.srtN), dttH: refSamples(r, r.dttS, r.dtt, r.dttN),
		minExp: uint64(r.tls.NotAfter), maxExp: uint64(r.tls.NotAfter)}
}

// refAvg is the sum of the averages in seconds of (microsecond sum, samples) pairs: null when
// one has no sample.
func refAvg(pairs ...uint64) float64 {
	v := 0.0
	for i := 0; i < len(pairs); i += 2 {
		if pairs[i+1] == 0 {
			return math.NaN()
		}
		v += float64(pairs[i]) / float64(pairs[i+1]) / 1e6
	}
	return v
}

// refQuery describes one statement for the reference computation.
type refQuery struct {
	since, until int64
	keys         []refKey
	where        func(r *rec) bool
	values       []func(s refSums) float64
	having       func(s refSums, v []float64) bool
	top          int
	layer        records.Layer // FROM: the records of this layer only
}

type refGroup struct {
	keys []any
	sums refSums
	vals []float64
}

func refDiv(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

func refCompare(a, b any) int {
	switch a := a.(type) {
	case int64:
		return cmp.Compare(a, b.(int64))
	case netip.Addr:
		return a.Compare(b.(netip.Addr))
	case refNamed:
		b := b.(refNamed)
		return cmp.Or(cmp.Compare(a.n, b.n), strings.Compare(a.names[0], b.names[0]), strings.Compare(a.names[1], b.names[1]))
	}
	return strings.Compare(a.(string), b.(string))
}

func refCompareKeys(a, b []any, skip int) int {
	for i := range a {
		if i == skip {
			continue
		}
		if c := refCompare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// refDesc orders by value descending, null last.
func refDesc(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	case math.IsNaN(b):
		return -1
	}
	return cmp.Compare(b, a)
}

// answer is the reference's answer to q over recs, computed the simplest way.
func (q refQuery) answer(recs []rec) Result {
	timeIdx := slices.IndexFunc(q.keys, func(k refKey) bool { return k.time > 0 })
	all := q.group(recs)
	kept := q.keep(all)
	groups := 0 // with TOP, the groups (time ignored) before it cuts
	if q.top > 0 && timeIdx < 0 {
		groups = len(kept)
	}
	if q.top > 0 && timeIdx >= 0 {
		kept, groups = q.topSeries(all, kept, timeIdx)
	}
	slices.SortFunc(kept, func(a, b *refGroup) int {
		if timeIdx >= 0 {
			if c := refCompare(a.keys[timeIdx], b.keys[timeIdx]); c != 0 {
				return c
			}
		}
		return cmp.Or(refDesc(a.vals[0], b.vals[0]), refCompareKeys(a.keys, b.keys, -1))
	})
	if q.top > 0 && timeIdx < 0 && len(kept) > q.top {
		kept = kept[:q.top]
	}
	res := Result{Data: []Row{}, Meta: Meta{AccumulatedTime: max(0, q.until-q.since), Sorted: timeIdx < 0, Groups: int64(groups)}}
	for _, g := range kept {
		keys := make([]any, len(g.keys))
		for i, k := range g.keys {
			keys[i] = refRender(q.keys[i], k)
		}
		res.Data = append(res.Data, Row{Keys: keys, Values: g.vals})
	}
	return res
}

// group sums the records of q's period and condition by q's keys, in order of arrival; a
// query without keys has its one group even without records.
func (q refQuery) group(recs []rec) []*refGroup {
	index := map[string]*refGroup{}
	var all []*refGroup
	for i := range recs {
		r := &recs[i]
		if r.time < q.since || r.time >= q.until || r.layer != q.layer || q.where != nil && !q.where(r) {
			continue
		}
		keys := make([]any, len(q.keys))
		for j, k := range q.keys {
			keys[j] = k.get(r)
		}
		id := fmt.Sprintf("%#v", keys) // Sprint would join two strings without a space
		g := index[id]
		if g == nil {
			g = &refGroup{keys: keys}
			index[id] = g
			all = append(all, g)
		}
		g.sums.add(sumsOf(r))
	}
	if len(q.keys) == 0 && len(all) == 0 {
		all = append(all, &refGroup{keys: []any{}})
	}
	return all
}

// keep computes the values of each group and returns those HAVING keeps.
func (q refQuery) keep(all []*refGroup) []*refGroup {
	var kept []*refGroup
	for _, g := range all {
		for _, v := range q.values {
			x := v(g.sums)
			if math.IsInf(x, 0) {
				x = math.NaN()
			}
			g.vals = append(g.vals, x)
		}
		if q.having == nil || q.having(g.sums, g.vals) {
			kept = append(kept, g)
		}
	}
	return kept
}

// topSeries keeps the time series (groups without their time key, at timeIdx) of the q.top
// first by their first value over the whole period (all), and returns them with how many
// series there were.
func (q refQuery) topSeries(all, kept []*refGroup, timeIdx int) ([]*refGroup, int) {
	// Rank the groups without time by their first value over the whole period.
	type cand struct {
		keys []any
		v    float64
	}
	var cands []cand
	for _, g := range kept {
		if slices.ContainsFunc(cands, func(c cand) bool { return refCompareKeys(c.keys, g.keys, timeIdx) == 0 }) {
			continue
		}
		var total refSums
		for _, o := range all {
			if refCompareKeys(o.keys, g.keys, timeIdx) == 0 {
				total.add(o.sums)
			}
		}
		v := q.values[0](total)
		if math.IsInf(v, 0) {
			v = math.NaN()
		}
		cands = append(cands, cand{g.keys, v})
	}
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(refDesc(a.v, b.v), refCompareKeys(a.keys, b.keys, timeIdx))
	})
	groups := len(cands)
	cands = cands[:min(len(cands), q.top)]
	kept = slices.DeleteFunc(kept, func(g *refGroup) bool {
		return !slices.ContainsFunc(cands, func(c cand) bool { return refCompareKeys(c.keys, g.keys, timeIdx) == 0 })
	})
	return kept, groups
}

// diffResult describes how got differs from want, ignoring Meta.Elapsed; "" when equal.
func diffResult(got, want Result) string {
	if got.Meta.AccumulatedTime != want.Meta.AccumulatedTime || got.Meta.Sorted != want.Meta.Sorted || got.Meta.Groups != want.Meta.Groups {
		return fmt.Sprintf("meta %+v, want %+v", got.Meta, want.Meta)
	}
	if got.Data == nil {
		return "data is nil"
	}
	if len(got.Data) != len(want.Data) {
		return fmt.Sprintf("%d rows, want %d\n got %v\nwant %v", len(got.Data), len(want.Data), head(got.Data), head(want.Data))
	}
	for i := range got.Data {
		g, w := got.Data[i], want.Data[i]
		if !reflect.DeepEqual(g.Keys, w.Keys) || !sameValues(g.Values, w.Values) {
			return fmt.Sprintf("row %d: %v %v, want %v %v", i, g.Keys, g.Values, w.Keys, w.Values)
		}
	}
	return ""
}

func head(rows []Row) []Row { return rows[:min(len(rows), 8)] }

func sameValues(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.IsNaN(a[i]) != math.IsNaN(b[i]) {
			return false
		}
		if !math.IsNaN(a[i]) && math.Abs(a[i]-b[i]) > 1e-9*math.Max(1, math.Abs(b[i])) {
			return false
		}
	}
	return true
}
