package pvql

import (
	"context"
	"slices"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Engine answers query expressions from a records store, in the store's own SQL. It is safe
// for concurrent use; it holds no state beyond its options.
type Engine struct {
	store     records.Reader
	slices    int
	maxGroups int
	budget    *Budget   // every group read
	keep      []*Budget // the groups Lives keep, besides budget
	queryBs   []*Budget // what a query counts against: budget
	keptBs    []*Budget // what a Live keeps counts against: keep and budget

	queue func(context.Context) (QueueState, error) // the layer queue's values (WithQueue)
}

// Option configures an Engine.
type Option func(*Engine)

// WithStreamSlices sets into how many slices Stream divides each statement's period, and so
// how many partial results it reports. Default 4; values below 1 mean 1.
func WithStreamSlices(n int) Option {
	return func(e *Engine) { e.slices = max(n, 1) }
}

// WithMaxGroups sets the most groups (rows before HAVING and TOP) the statements of one query
// may produce together; more fail with a *GroupsError (ErrTooManyGroups). Default 1,000,000,
// which bounds the memory of one answer (about 300 MB, 450 MB grouped by every key) whatever
// the number of statements; 0 removes the limit.
func WithMaxGroups(n int) Option {
	return func(e *Engine) { e.maxGroups = max(n, 0) }
}

// New returns an Engine reading the records of store.
func New(store records.Reader, opts ...Option) *Engine {
	e := &Engine{store: store, slices: 4, maxGroups: 1_000_000}
	for _, o := range opts {
		o(e)
	}
	e.settle()
	return e
}

// With returns an engine over the same store with e's options and opts: an engine of one
// owner's standing queries (WithKeepBudget, WithMaxGroups) sharing e's group budget. e is
// unchanged.
func (e *Engine) With(opts ...Option) *Engine {
	c := *e
	c.keep = slices.Clone(e.keep)
	for _, o := range opts {
		o(&c)
	}
	c.settle()
	return &c
}

// Query answers expr, one Result per statement. now is the time @now stands for and
// defaultPeriod the length of the period when a statement gives no SINCE (a non-positive
// length means one hour). A bad expression is a *SyntaxError.
func (e *Engine) Query(ctx context.Context, expr string, now time.Time, defaultPeriod time.Duration) ([]Result, error) {
	var out []Result
	err := e.run(ctx, expr, now, defaultPeriod, 1, func(r []Result, _ float64) error {
		out = r
		return nil
	})
	return out, err
}

// Stream answers expr progressively: it reads each statement's period in slices, newest
// first, and after each slice calls fn with the results so far (each call's results replace
// the previous ones) and the fraction of the work done. The last call has progress 1 and
// results equal to Query's. An error from fn stops the stream and is returned as is.
func (e *Engine) Stream(ctx context.Context, expr string, now time.Time, defaultPeriod time.Duration,
	fn func(partial []Result, progress float64) error) error {
	return e.run(ctx, expr, now, defaultPeriod, e.slices, fn)
}
