package pvql

import (
	"errors"
	"sync/atomic"
)

// ErrBusy is returned (wrapped) when the queries running at once hold together as many groups
// as the engine's budget allows (see WithGroupBudget): the query may be tried again when
// others have ended.
var ErrBusy = errors.New("pvql: the queries running now hold as many groups as the engine allows")

// budgetChunk is how many groups a query takes from the budget at a time, so that the shared
// counter is touched once per this many new groups.
const budgetChunk = 4096

// budget is the groups that the queries running at once may hold together, shared by every
// query of an Engine. A nil budget is unlimited.
type budget struct{ left atomic.Int64 }

// WithGroupBudget sets the most groups the queries running at once may hold together, which
// bounds the memory of all answers in progress (about 300 bytes a group, 450 grouped by every
// key); past it a query fails with ErrBusy. Default 0: no budget beyond each query's own
// WithMaxGroups.
func WithGroupBudget(n int) Option {
	return func(e *Engine) {
		e.budget = nil
		if n > 0 {
			e.budget = &budget{}
			e.budget.left.Store(int64(n))
		}
	}
}

// reservation is what one query took from the budget.
type reservation struct {
	b    *budget
	held int64
}

// need makes sure the query holds room for n groups in all, taking more from the budget in
// chunks; ErrBusy when the budget is spent.
func (r *reservation) need(n int) error {
	if r.b == nil || int64(n) <= r.held {
		return nil
	}
	if r.b.left.Add(-budgetChunk) < 0 {
		r.b.left.Add(budgetChunk)
		return ErrBusy
	}
	r.held += budgetChunk
	return nil
}

// release gives back what the query took.
func (r *reservation) release() {
	if r.b != nil {
		r.b.left.Add(r.held)
		r.held = 0
	}
}
