package pvql

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// MaxFamilyRead is the most distinct literals one read of AnswerEach asks for at once
// (`k IN (...)`); a family of more is read in several reads of at most that many. The groups
// of one read, of all its literals, count against the engine's group limit (WithMaxGroups):
// past it AnswerEach fails with a *GroupsError, and its caller may answer each alone.
const MaxFamilyRead = 1000

// Family returns the statement's shape (Shape) without the literal of its equality term on a
// key, `k = literal` alone in WHERE or ANDed with other terms, when it has one that can be
// read for several literals at once: statements of one family differ only in their HAVING
// and in that literal, and AnswerEach answers them with one read (`... AND k IN (literals)
// BY k, keys`) split by the value of k. Statements with TOP, a time key, baselines or
// percentiles, or whose key k is among their BY keys, have no such term: their family is
// their shape.
func (s *Statement) Family() string { return s.family }

// familyOf returns the family of st, whose text is src[from:to], and its equality term; the
// shape and no term when it has none that can be merged.
func familyOf(src string, from, to int, st *Statement) (string, *fieldFilter) {
	eq := mergeTerm(st)
	if eq == nil {
		return st.shape, nil
	}
	// Cut HAVING (" ") and the literal (" ? "), in the order they come.
	type cut struct {
		at   [2]int
		with string
	}
	cuts := []cut{{eq.at, " ? "}}
	if h := st.havingAt; h[1] > h[0] {
		cuts = append(cuts, cut{h, " "})
		if h[0] < eq.at[0] {
			cuts[0], cuts[1] = cuts[1], cuts[0]
		}
	}
	var b strings.Builder
	at := from
	for _, c := range cuts {
		b.WriteString(src[at:c.at[0]])
		b.WriteString(c.with)
		at = c.at[1]
	}
	b.WriteString(src[at:to])
	// The family names the key so that it is no shape (which holds no "\x00").
	return keyKinds[eq.field].name + "\x00" + strings.Join(strings.Fields(b.String()), " "), eq
}

// mergeTerm returns st's first term `k = literal` of WHERE (alone or ANDed) that AnswerEach
// can read for several literals at once, or nil.
func mergeTerm(st *Statement) *fieldFilter {
	if st.top > 0 || len(st.baselines()) > 0 || len(st.quantiles()) > 0 {
		return nil
	}
	if slices.ContainsFunc(st.keys, func(k key) bool { return k.kind == kTime }) {
		return nil
	}
	terms := []filter{st.where}
	if a, ok := st.where.(*andFilter); ok {
		terms = a.terms
	}
	for _, t := range terms {
		ff, ok := t.(*fieldFilter)
		if !ok || ff.op != opEq || len(ff.lits) != 1 || ff.lits[0].nested || ff.lits[0].from != ff.lits[0].to ||
			ff.at[1] <= ff.at[0] || slices.ContainsFunc(st.keys, func(k key) bool { return k.kind == ff.field }) {
			continue
		}
		return ff
	}
	return nil
}

// answerFamily answers statements of one family (with an equality term) with a read per
// MaxFamilyRead distinct literals, as AnswerEach.
func (e *Engine) answerFamily(ctx context.Context, stmts []*Statement, now time.Time, defaultPeriod time.Duration) ([]Result, error) {
	start := time.Now()
	byValue := map[records.Value][]int{} // the statements of each literal
	var values []records.Value
	for i, st := range stmts {
		v := st.eq.lits[0].from
		if byValue[v] == nil {
			values = append(values, v)
		}
		byValue[v] = append(byValue[v], i)
	}
	out := make([]Result, len(stmts))
	for len(values) > 0 {
		n := min(len(values), MaxFamilyRead)
		if err := e.readFamily(ctx, stmts, values[:n], byValue, now, defaultPeriod, out); err != nil {
			return nil, err
		}
		values = values[n:]
	}
	for i := range out {
		out[i].Meta.Elapsed = time.Since(start).Seconds()
	}
	return out, nil
}

// readFamily answers, with one read, the statements of byValue of the given values, into out.
func (e *Engine) readFamily(ctx context.Context, stmts []*Statement, values []records.Value,
	byValue map[records.Value][]int, now time.Time, defaultPeriod time.Duration, out []Result) error {
	first := stmts[byValue[values[0]][0]]
	// The merged statement: WHERE the same but k IN (values), BY k then the keys, no HAVING.
	in := &fieldFilter{field: first.eq.field, op: opIn}
	for _, v := range values {
		in.lits = append(in.lits, literal{from: v, to: v})
	}
	m := *first
	m.keys = append([]key{{kind: first.eq.field}}, first.keys...)
	m.having = nil
	if a, ok := first.where.(*andFilter); ok {
		terms := slices.Clone(a.terms)
		terms[slices.Index(terms, filter(first.eq))] = in
		m.where = &andFilter{terms: terms}
	} else {
		m.where = in
	}
	var need [records.NumSums]bool
	for _, v := range values {
		for _, i := range byValue[v] {
			for _, s := range neededSums(stmts[i]) {
				need[s] = true
			}
		}
	}
	s, res, err := e.readOnce(ctx, &m, &need, now, defaultPeriod) // m's period is first's
	if err != nil {
		return err
	}
	defer res.release()
	// Split the groups by the value of k into a state per literal, whose keys are the
	// statements' own.
	each := make(map[records.Value]*state, len(values))
	for _, v := range values {
		sub := &state{st: first, slots: layout(first.keys), since: s.since, until: s.until, covered: s.covered}
		sub.groups = groupsOf(sub.slots)
		each[v] = sub
	}
	for i := range s.groups.len() {
		gr, key := s.groups.group(i), s.groups.key(i)
		sub := each[s.slots[0].get(&key)]
		if sub == nil {
			continue // no literal's (the store compared otherwise): no statement's
		}
		var k gkey
		for j, sl := range sub.slots {
			from := s.slots[j+1]
			sl.set(&k, from.get(&key))
			for x, e := range sl.extra {
				k.s[e] = key.s[from.extra[x]]
			}
		}
		g := sub.groups.atGroup(k)
		for j := range g.sums {
			g.sums[j] = records.MergeSum(records.Sum(j), g.sums[j], gr.sums[j])
		}
		addHists(&g.hists, gr.hists)
	}
	for _, v := range values {
		sub := each[v]
		vals := sub.values() // the same but for HAVING: the same values, computed once
		for _, i := range byValue[v] {
			sub.st = stmts[i]
			out[i] = sub.resultOf(vals)
		}
	}
	return nil
}
