package pvql

import (
	"context"
	"fmt"
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
	plan         *records.Plan
	slots        []slot
	since, until int64
	covered      int64
	groups       *groups
}

func (e *Engine) run(ctx context.Context, expr string, now time.Time, defaultPeriod time.Duration, n int,
	fn func([]Result, float64) error) error {
	start := time.Now()
	stmts, err := Parse(expr)
	if err != nil {
		return err
	}
	res := &reservation{b: e.budget}
	defer res.release()
	states := make([]*state, len(stmts))
	for i, st := range stmts {
		q := compile(st, e.maxGroups)
		s := &state{st: st, query: q, plan: e.store.Compile(q), slots: layout(st.keys), groups: newGroups()}
		s.since, s.until = period(st, now, defaultPeriod)
		states[i] = s
	}
	for j := range n {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("pvql: %w", err)
		}
		for i, s := range states {
			from, to := s.slice(j, n)
			if from >= to {
				continue
			}
			others := 0 // the groups of the other statements: the limit is the query's
			for _, o := range states {
				if o != s {
					others += len(o.groups.keys)
				}
			}
			if err := e.read(ctx, s, from, to, e.maxGroups-others, res, others); err != nil {
				return fmt.Errorf("pvql: statement %d: %w", i+1, err)
			}
			s.covered += to - from
		}
		results := make([]Result, len(states))
		for i, s := range states {
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

// read runs the statement's query over [from, to) and merges the rows into its groups, of
// which it may hold at most room (when the engine has a group limit), reserving them in res
// beside the others the query holds.
func (e *Engine) read(ctx context.Context, s *state, from, to int64, room int, res *reservation, others int) error {
	return e.store.Read(ctx, s.plan, from, to, func(r *records.Row) error {
		var k gkey
		for i, sl := range s.slots {
			sl.set(&k, r.Keys[i])
		}
		sm := s.groups.at(k)
		for i, sumIndex := range s.query.Sums {
			sm[sumIndex] += r.Sums[i]
		}
		if e.maxGroups > 0 && len(s.groups.keys) > room {
			return &GroupsError{Limit: e.maxGroups}
		}
		if err := res.need(others + len(s.groups.keys)); err != nil {
			return err
		}
		return nil
	})
}
