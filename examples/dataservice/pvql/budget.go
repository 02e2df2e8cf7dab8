package pvql

import (
	"errors"
	"sync/atomic"
)

// ErrBusy is returned (wrapped) when the queries running at once hold together as many groups
// as the engine's budget allows (see WithGroupBudget): the query may be tried again when
// others have ended.
var ErrBusy = errors.New("pvql: the queries running now hold as many groups as the engine allows")

// budgetChunk is the most groups a query takes from its budgets at a time, so that the shared
// counters are touched once per this many new groups; minChunk the fewest. A query takes what
// it holds again (doubling it) up to budgetChunk, so that a small query or Live holds at most
// twice its groups, and a large one a chunk more.
const budgetChunk, minChunk = 4096, 64

// Budget is a number of groups held together: by the queries running at once while they run
// (WithGroupBudget) and by the Lives that count against it between their answers
// (WithKeepBudget). Safe for concurrent use.
type Budget struct{ left atomic.Int64 }

// NewBudget returns a budget of n groups; n below 1 holds none.
func NewBudget(n int) *Budget {
	b := &Budget{}
	b.left.Store(int64(max(n, 0)))
	return b
}

// Left returns how many of b's groups are not held.
func (b *Budget) Left() int { return int(b.left.Load()) }

// WithGroupBudget sets the most groups the queries running at once may hold together, which
// bounds the memory of all answers in progress (about 300 bytes a group, 450 grouped by every
// key); past it a query fails with ErrBusy. Default 0: no budget beyond each query's own
// WithMaxGroups.
func WithGroupBudget(n int) Option {
	return func(e *Engine) {
		e.budget = nil
		if n > 0 {
			e.budget = NewBudget(n)
		}
	}
}

// WithKeepBudget makes the groups the engine's Lives keep between their answers count against
// each of bs too, besides the group budget (which counts every group read): a Live that finds
// one of them spent keeps nothing and answers with Query until it can keep again. An engine's
// standing queries (alert rules, followed queries) reserve so in a pool of their own and in a
// share of their owner's (see Engine.With), so that what they keep never takes what other
// queries need. Nil budgets are left out.
func WithKeepBudget(bs ...*Budget) Option {
	return func(e *Engine) {
		e.keep = e.keep[:0:0]
		for _, b := range bs {
			if b != nil {
				e.keep = append(e.keep, b)
			}
		}
	}
}

// reservation is what one query, or one Live, took from its budgets.
type reservation struct {
	bs   []*Budget // none: unlimited
	held int64
}

// settle sets the budgets the engine's queries, and what its Lives keep, count against.
func (e *Engine) settle() {
	e.queryBs, e.keptBs = nil, append([]*Budget(nil), e.keep...)
	if e.budget != nil {
		e.queryBs = []*Budget{e.budget}
		e.keptBs = append(e.keptBs, e.budget)
	}
}

// need makes sure the query holds room for n groups in all, taking more from every budget
// (in chunks); ErrBusy when one of them is spent, and then it holds no more than before.
func (r *reservation) need(n int) error {
	if int64(n) <= r.held || len(r.bs) == 0 {
		return nil // the common case, per group read: inlined
	}
	return r.grow(n)
}

// grow takes from every budget until the query holds room for n groups.
func (r *reservation) grow(n int) error {
	for int64(n) > r.held {
		step := min(max(r.held, minChunk), budgetChunk)
		for i, b := range r.bs {
			if b.left.Add(-step) < 0 {
				for _, t := range r.bs[:i+1] {
					t.left.Add(step)
				}
				return ErrBusy
			}
		}
		r.held += step
	}
	return nil
}

// release gives back what the query took.
func (r *reservation) release() {
	for _, b := range r.bs {
		b.left.Add(r.held)
	}
	r.held = 0
}
