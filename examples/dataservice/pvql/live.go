package pvql

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Live answers one expression again and again as time passes (a followed query), each answer
// equal to Query's at its time but read mostly from what it kept of the one before: the sums
// of each statement's groups over its period, and per bucket (about 64 of whole minutes) for
// the first bucket and the most recent ones, where late records land. An answer reads from the
// store the seconds the period gained and the detailed buckets whose records changed since the
// last one (Changes); the seconds it lost it drops, as the first bucket, which the period's
// start moves through, is also kept per second. A change to a bucket kept in the totals only
// makes it read the period afresh. Sums are whole numbers below records.MaxSum, so adding and
// dropping them is exact (a sum that reaches it makes the Live answer with Query for good: a
// saturated sum cannot be taken from); each kept group also counts its records, so a group
// leaves when its last record does.
// TOP, HAVING and the values are computed at each answer on the full sums of every group, as
// Query does.
//
// It answers afresh (Query) when its store does not report its changes, and for good when
// the sums it keeps would pass the engine's group limit (WithMaxGroups: the totals and the
// buckets' detail counted together, so a Live holds at most as many groups as one query may). The groups it keeps count against the engine's group budget (WithGroupBudget)
// and its keep budgets (WithKeepBudget) until Close; when one is spent, or a read fails, it
// drops what it kept and answers afresh (counting against the group budget only, as Query
// does, until the answer is made), building again at the next answer.
//
// A Live is not safe for concurrent use: one goroutine answers it, as a followed query's
// shared computation does.
type Live struct {
	e     *Engine
	expr  string
	stmts []*Statement
	watch *records.Watcher // nil: every answer is Query's
	full  bool             // the kept sums would pass the group limit or saturate: Query's answers for good
	scans []*liveScan      // nil when nothing is kept
	res   *reservation
	kept  int // the groups kept: the totals and the buckets' detail
}

// Sentinel errors that make a Live drop what it kept and answer afresh.
var (
	errKeepTooMany = errors.New("pvql: a followed query would keep more groups than the limit")
	errDrift       = errors.New("pvql: a followed query's kept sums disagree with the store")
	// errSaturated: a kept sum reached records.MaxSum, past which it is no longer exact, so
	// that taking a bucket's sums from it (as the period moves) would no longer be either.
	errSaturated = errors.New("pvql: a followed query's kept sums reached their maximum")
)

// Live returns a Live answering expr, reading only what changes reports as changed; with
// changes nil every answer is Query's. A bad expression is a *SyntaxError. Close it when done.
func (e *Engine) Live(expr string, changes *records.Changes) (*Live, error) {
	stmts, err := Parse(expr)
	if err != nil {
		return nil, err
	}
	l := &Live{e: e, expr: expr, stmts: stmts, res: &reservation{bs: e.keptBs}, full: hasBaselines(stmts) || hasQuantiles(stmts) || hasQueue(stmts) || hasExtremes(stmts)}
	if changes != nil {
		l.watch = changes.Watch()
	}
	return l, nil
}

// Close releases what l keeps and stops it watching its store's changes.
func (l *Live) Close() {
	l.reset()
	if l.watch != nil {
		l.watch.Close()
	}
}

// Answer answers the expression at now, with defaultPeriod the length of a period without
// SINCE, as Query does.
func (l *Live) Answer(ctx context.Context, now time.Time, defaultPeriod time.Duration) ([]Result, error) {
	if l.watch == nil || l.full {
		return l.e.Query(ctx, l.expr, now, defaultPeriod)
	}
	start := time.Now()
	changed := l.watch.Take()
	periods := make([][2]int64, len(l.stmts))
	for i, st := range l.stmts {
		periods[i][0], periods[i][1] = period(st, now, defaultPeriod)
	}
	if !l.fits(periods) {
		l.build(periods)
	}
	err := l.move(ctx, periods, changed)
	if errors.Is(err, errStale) {
		l.build(periods) // read the period afresh, once
		err = l.move(ctx, periods, nil)
	}
	if err != nil {
		return l.recover(ctx, err, now, defaultPeriod)
	}
	out := make([]Result, len(l.stmts))
	for _, sc := range l.scans {
		for i, ls := range sc.stmts {
			out[sc.index[i]-1] = ls.result(sc.since, sc.until)
		}
	}
	for i := range out {
		out[i].Meta.Elapsed = time.Since(start).Seconds()
	}
	return out, nil
}

// move moves every scan to its period, given the times changed since the last answer, and
// drops the detail of the buckets that no longer keep it.
func (l *Live) move(ctx context.Context, periods [][2]int64, changed []records.Span) error {
	var subs []subtracted
	for _, sc := range l.scans {
		sc.since, sc.until = periods[sc.index[0]-1][0], periods[sc.index[0]-1][1]
		s, err := l.update(ctx, sc, changed)
		if err != nil {
			return err
		}
		subs = append(subs, s...)
	}
	if err := l.settle(ctx, subs); err != nil {
		return err
	}
	for _, sc := range l.scans {
		l.forget(sc)
	}
	return nil
}

// recover drops what l kept after err and answers afresh when err is one l recovers from.
func (l *Live) recover(ctx context.Context, err error, now time.Time, defaultPeriod time.Duration) ([]Result, error) {
	l.reset()
	switch {
	case errors.Is(err, errKeepTooMany), errors.Is(err, errSaturated):
		l.full = true
		l.watch.Close() // it will not be read again
	case errors.Is(err, ErrBusy), errors.Is(err, errDrift):
	default:
		return nil, err
	}
	return l.e.Query(ctx, l.expr, now, defaultPeriod)
}

// reset drops every kept sum and gives back the groups reserved.
func (l *Live) reset() {
	l.scans, l.kept = nil, 0
	l.res.release()
}

// fits reports whether the kept scans can move to periods: the statements of each scan still
// share a period, those of different scans do not, and the buckets stay few.
func (l *Live) fits(periods [][2]int64) bool {
	if l.scans == nil {
		return false
	}
	for _, sc := range l.scans {
		p := periods[sc.index[0]-1]
		for _, i := range sc.index {
			if periods[i-1] != p {
				return false
			}
		}
		if (p[1]-p[0])/sc.width > maxBuckets {
			return false
		}
	}
	for i, a := range l.scans {
		for _, b := range l.scans[i+1:] {
			if periods[a.index[0]-1] == periods[b.index[0]-1] {
				return false
			}
		}
	}
	return true
}

// build starts afresh with empty scans over periods: the statements of one period in one
// scan, as Query reads them.
func (l *Live) build(periods [][2]int64) {
	l.reset()
	for i := range l.stmts {
		j := slices.IndexFunc(l.scans, func(sc *liveScan) bool { return periods[sc.index[0]-1] == periods[i] })
		if j < 0 {
			l.scans = append(l.scans, &liveScan{buckets: map[int64]*bucket{}})
			j = len(l.scans) - 1
		}
		l.scans[j].index = append(l.scans[j].index, i+1)
	}
	for _, sc := range l.scans {
		sc.width = bucketWidth(periods[sc.index[0]-1])
		qs := make([]*records.Query, len(sc.index))
		fine := make([]*records.Query, len(sc.index))
		for i, n := range sc.index {
			st := l.stmts[n-1]
			qs[i], fine[i] = compileLive(st, sc.width), compileLive(st, 1)
			sc.stmts = append(sc.stmts, &liveStmt{st: st, query: qs[i], slots: layout(st.keys), total: map[gkey]sums{}})
		}
		sc.plan, sc.fine = l.e.store.Compile(qs...), l.e.store.Compile(fine...)
	}
}

// compileLive is compile's query of st with the time bucket of width seconds as its last key,
// and the record count among its sums. It has no Limit: its rows are groups per bucket, which
// may be many more than the groups kept (those of the buckets without detail only add to the
// totals), and the Live counts what it keeps as the rows come.
func compileLive(st *Statement, width int64) *records.Query {
	q := compile(st, 0)
	q.Groups = append(q.Groups, records.Group{Column: keyKinds[kTime].column, Bucket: width})
	hasRecords := false
	for _, s := range q.Sums {
		hasRecords = hasRecords || s == records.SumRecords
	}
	if !hasRecords {
		q.Sums = append(q.Sums, records.SumRecords)
	}
	return q
}

// liveStmt is one statement of a Live: its query and the sums of its groups over the period.
type liveStmt struct {
	st    *Statement
	query *records.Query
	slots []slot
	total map[gkey]sums
}

// result is the statement's answer over [since, until) from its total sums.
func (ls *liveStmt) result(since, until int64) Result {
	g := groupsOf(ls.slots)
	for k, s := range ls.total {
		*g.at(k) = s
	}
	s := &state{st: ls.st, slots: ls.slots, groups: g, covered: max(until-since, 0)}
	return s.result()
}

// add adds sign times the sums of row r to those of group k in m; new is how many groups
// that added (1) or removed (-1). Removing more than m holds is errDrift.
func (ls *liveStmt) add(m map[gkey]sums, k gkey, r *records.Row, sign int) (changed int, err error) {
	s, ok := m[k]
	if sign < 0 {
		if !ok {
			return 0, fmt.Errorf("%w: a group left that was never read", errDrift)
		}
		for i, sum := range ls.query.Sums {
			if s[sum] < r.Sums[i] {
				return 0, fmt.Errorf("%w: more left than was read", errDrift)
			}
			s[sum] -= r.Sums[i]
		}
		if s[records.SumRecords] == 0 {
			if s != (sums{}) {
				return 0, fmt.Errorf("%w: a group left with sums but no records", errDrift)
			}
			delete(m, k)
			return -1, nil
		}
		m[k] = s
		return 0, nil
	}
	for i, sum := range ls.query.Sums {
		if s[sum] = records.AddSum(s[sum], r.Sums[i]); s[sum] == records.MaxSum {
			return 0, errSaturated
		}
	}
	m[k] = s
	if !ok {
		return 1, nil
	}
	return 0, nil
}
