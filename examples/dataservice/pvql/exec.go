package pvql

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// timeBound keeps resolved times within ±2^53 seconds so that period arithmetic never
// overflows; no record lies beyond.
const timeBound = 1 << 53

// state is one statement being answered.
type state struct {
	st           *Statement
	query        *records.Query
	slots        []slot
	since, until int64
	covered      int64
	groups       *groups
	base         *baselineSums // the earlier windows of its baselines; nil without
}

func (e *Engine) run(ctx context.Context, expr string, now time.Time, defaultPeriod time.Duration, n int,
	fn func([]Result, float64) error) error {
	start := time.Now()
	stmts, err := Parse(expr)
	if err != nil {
		return err
	}
	res := &reservation{bs: e.queryBs}
	defer res.release()
	total := 0 // the groups of all the statements
	states := make([]*state, len(stmts))
	for i, st := range stmts {
		s := &state{st: st, query: compile(st, e.maxGroups), slots: layout(st.keys)}
		s.groups = groupsOf(s.slots)
		s.since, s.until = period(st, now, defaultPeriod)
		states[i] = s
		if err := e.readBaselines(ctx, s, res, &total); err != nil {
			return err
		}
	}
	if err := e.readQueue(ctx, states); err != nil {
		return err
	}
	scans := e.scans(states)
	for j := range n {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("pvql: %w", err)
		}
		for _, sc := range scans {
			from, to := sc.states[0].slice(j, n)
			if from >= to {
				continue
			}
			if err := e.read(ctx, sc, from, to, res, &total); err != nil {
				return err
			}
			for _, s := range sc.states {
				s.covered += to - from
			}
		}
		results := make([]Result, len(states))
		for i, s := range states {
			s.prepareBaselines()
			s.prepareQuantiles()
			results[i] = s.result()
			results[i].Meta.Elapsed = time.Since(start).Seconds()
		}
		if err := fn(results, float64(j+1)/float64(n)); err != nil {
			return err
		}
	}
	return nil
}

// period resolves the statement's SINCE and UNTIL.
func period(st *Statement, now time.Time, defaultPeriod time.Duration) (since, until int64) {
	length := int64(defaultPeriod / time.Second)
	if length <= 0 {
		length = 3600
	}
	clamp := func(v int64) int64 { return min(max(v, -timeBound), timeBound) }
	nowSec := clamp(now.Unix())
	until = nowSec
	if st.until != nil {
		until = clamp(st.until.resolve(nowSec))
	}
	since = clamp(until - min(length, timeBound))
	if st.since != nil {
		since = clamp(st.since.resolve(nowSec))
	}
	return since, until
}

// slice returns the j-th of n slices of the period, newest first.
func (s *state) slice(j, n int) (from, to int64) {
	length := s.until - s.since
	if length <= 0 {
		return 0, 0
	}
	step := length / int64(n)
	to = s.until - step*int64(j)
	from = to - step
	if j == n-1 {
		from = s.since
	}
	return from, to
}

// scan is the statements of one period, read together: the store answers all their queries
// in one plan, sharing its pass over the records where it can.
type scan struct {
	plan   *records.Plan
	states []*state
	index  []int // each state's statement number, from 1
}

// scans groups the states by period, in order of first appearance.
func (e *Engine) scans(states []*state) []*scan {
	var out []*scan
	var qs [][]*records.Query
	for i, s := range states {
		if s.st.layer == lQueue {
			continue // readQueue's
		}
		j := slices.IndexFunc(out, func(sc *scan) bool {
			return sc.states[0].since == s.since && sc.states[0].until == s.until
		})
		if j < 0 {
			out, qs = append(out, &scan{}), append(qs, nil)
			j = len(out) - 1
		}
		out[j].states = append(out[j].states, s)
		out[j].index = append(out[j].index, i+1)
		qs[j] = append(qs[j], s.query)
	}
	for j, sc := range out {
		sc.plan = e.store.Compile(qs[j]...)
	}
	return out
}

// read runs the scan's plan over [from, to) and merges each row into its statement's groups.
// total counts the groups of all the query's statements, which may be at most the engine's
// group limit, and which it reserves in res.
func (e *Engine) read(ctx context.Context, sc *scan, from, to int64, res *reservation, total *int) error {
	at := 0 // the statement the error names
	err := e.store.Read(ctx, sc.plan, from, to, func(r *records.Row) error {
		at = r.Query
		s := sc.states[r.Query]
		var k gkey
		setKey(s.slots, &k, r.Keys)
		had := s.groups.len()
		gr := s.groups.atGroup(k)
		sm := &gr.sums
		for i, sumIndex := range s.query.Sums {
			sm[sumIndex] = records.MergeSum(sumIndex, sm[sumIndex], r.Sums[i])
		}
		addHists(&gr.hists, r.Hists)
		if s.groups.len() == had {
			return nil
		}
		if *total++; e.maxGroups > 0 && *total > e.maxGroups {
			return &GroupsError{Limit: e.maxGroups}
		}
		return res.need(*total)
	})
	if err != nil {
		return fmt.Errorf("pvql: statement %d: %w", sc.index[at], err)
	}
	return nil
}
