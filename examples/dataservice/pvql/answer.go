package pvql

import (
	"slices"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// result computes the statement's values on its group sums, then applies HAVING, TOP and the
// order. Meta.Elapsed is left to the caller.
func (s *state) result() Result { return s.resultOf(s.values()) }

// values computes the statement's values on each group's sums: nv a group, in group order.
// They are the same for every statement of one shape.
func (s *state) values() []float64 {
	st, g := s.st, s.groups
	if len(st.keys) == 0 && g.len() == 0 {
		g.at(gkey{})
	}
	nv := len(st.values)
	vals := make([]float64, g.len()*nv)
	for i := range g.len() {
		sm := &g.group(i).sums
		for j, v := range st.values {
			vals[i*nv+j] = finalValue(v.x, sm)
		}
	}
	return vals
}

// resultOf applies HAVING, TOP and the order to the groups with their values vals (values);
// the rows' Values are slices of vals.
func (s *state) resultOf(vals []float64) Result {
	st, g := s.st, s.groups
	nv := len(st.values)
	var kept []int
	for i := range g.len() {
		if st.having == nil || match(st.having, &g.group(i).sums) {
			kept = append(kept, i)
		}
	}
	timeKey := slices.ContainsFunc(st.keys, func(k key) bool { return k.kind == kTime })
	var groups int64 // with TOP, the groups (time ignored) before it cut
	if st.top > 0 && timeKey {
		kept, groups = s.topGroups(kept)
	} else if st.top > 0 {
		groups = int64(len(kept))
	}
	slices.SortFunc(kept, func(a, b int) int {
		if ta, tb := g.time(a), g.time(b); timeKey && ta != tb {
			if ta < tb {
				return -1
			}
			return 1
		}
		if c := compareValuesDesc(vals[a*nv], vals[b*nv]); c != 0 {
			return c
		}
		ka, kb := g.key(a), g.key(b)
		return compareKeys(s.slots, &ka, &kb, true)
	})
	if st.top > 0 && !timeKey && int64(len(kept)) > st.top {
		kept = kept[:st.top]
	}
	r := Result{Data: make([]Row, len(kept)), Meta: Meta{AccumulatedTime: s.covered, Sorted: !timeKey, Groups: groups}}
	for n, i := range kept {
		k := g.key(i)
		r.Data[n] = Row{Keys: rowKeys(s.slots, &k), Values: vals[i*nv : (i+1)*nv : (i+1)*nv]}
	}
	return r
}

// topGroups keeps the rows of the st.top groups, ignoring time, whose first value over the
// whole period is largest, among the groups that have rows in kept, and the number of those
// groups.
func (s *state) topGroups(kept []int) ([]int, int64) {
	st, g := s.st, s.groups
	totals := map[gkey]*sums{}
	hists := map[gkey]*[]histogram.Histogram{} // with percentiles
	qs := st.quantiles()
	for i := range g.len() {
		gr := g.group(i)
		k := g.key(i)
		k.time = 0
		t := totals[k]
		if t == nil {
			t = &sums{}
			totals[k], hists[k] = t, new([]histogram.Histogram)
		}
		for j := range t {
			t[j] = records.MergeSum(records.Sum(j), t[j], gr.sums[j])
		}
		if len(qs) > 0 {
			addHists(hists[k], gr.hists)
		}
	}
	if len(qs) > 0 {
		for k, t := range totals {
			s.quantilesOf(qs, t, *hists[k])
		}
	}
	type candidate struct {
		k gkey
		v float64
	}
	seen := map[gkey]bool{}
	var cands []candidate
	for _, i := range kept {
		k := g.key(i)
		k.time = 0
		if !seen[k] {
			seen[k] = true
			cands = append(cands, candidate{k, finalValue(st.values[0].x, totals[k])})
		}
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		if c := compareValuesDesc(a.v, b.v); c != 0 {
			return c
		}
		return compareKeys(s.slots, &a.k, &b.k, false)
	})
	top := map[gkey]bool{}
	for _, c := range cands[:min(int64(len(cands)), st.top)] {
		top[c.k] = true
	}
	return slices.DeleteFunc(kept, func(i int) bool {
		k := g.key(i)
		k.time = 0
		return !top[k]
	}), int64(len(cands))
}

// rowKeys renders a group's keys for a Row.
func rowKeys(slots []slot, k *gkey) []any {
	out := make([]any, len(slots))
	for i, s := range slots {
		out[i] = s.render(k)
	}
	return out
}
