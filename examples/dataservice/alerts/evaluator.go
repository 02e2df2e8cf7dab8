package alerts

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"go.uber.org/zap"
)

// lookSlack is how much earlier than due Tick evaluates a rule: half of Run's second.
const lookSlack = 500 * time.Millisecond

// historyKept is how long transitions stay in the history.
const historyKept = 90 * 24 * time.Hour

// Evaluator evaluates the rules and delivers their notifications. Run it on one node at a
// time; Tick is one pass, for tests and tools. Safe for concurrent use.
type Evaluator struct {
	s    *Service
	mu   sync.Mutex
	next map[string]time.Time // when each rule is due
	live map[job]Standing     // with Options.Live
	// quiet holds the rules known to have no alert pending or firing: while their query
	// answers no group, an evaluation changes nothing and writes nothing. Only the
	// evaluator makes alerts, so this stays true until it makes one.
	quiet map[string]bool
	// mit announces the routes of the rules' bgp channels.
	mit *mitigator
	// stored watches the records stored (Options.Changes): rules with a bgp channel are
	// evaluated at the look after records arrived. Nil without.
	stored *records.Watcher
}

// NewEvaluator returns the evaluator of the rules of s.
func (s *Service) NewEvaluator() *Evaluator {
	e := &Evaluator{s: s, next: map[string]time.Time{}, live: map[job]Standing{}, quiet: map[string]bool{}, mit: newMitigator(s)}
	if s.opts.Changes != nil {
		e.stored = s.opts.Changes.Watch()
	}
	return e
}

// Run evaluates the rules when due and delivers their notifications until ctx is done,
// checking every second.
func (e *Evaluator) Run(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	defer e.Close()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { e.s.deliverLoop(ctx) })
	pruned := time.Time{}
	for {
		now := time.Now()
		if err := e.Tick(ctx, now); err != nil && ctx.Err() == nil {
			e.s.log.Error("alerts: evaluation", zap.Error(err))
		}
		if now.Sub(pruned) > time.Hour {
			pruned = now
			if err := e.s.store.PruneHistory(ctx, now.Add(-historyKept)); err != nil && ctx.Err() == nil {
				e.s.log.Error("alerts: pruning the history", zap.Error(err))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// job is one computation of an evaluation: a query of the rules of one owner, whose share
// of the standing groups it counts against (Owner).
type job struct{ owner, query string }

// Tick evaluates the rules due at now. Rules of one owner with the same query share one
// computation.
func (e *Evaluator) Tick(ctx context.Context, now time.Time) error {
	rules, err := e.s.store.Rules(ctx)
	if err != nil {
		return err
	}
	// Records arrived since the last look: rules with a bgp channel are due at once (a flood
	// is stopped as soon as it is seen; their live answers re-read only what arrived).
	arrived := e.stored != nil && len(e.stored.Take()) > 0
	e.mu.Lock()
	due := map[job][]state.AlertRule{}
	var order []job
	live, queries := map[string]bool{}, map[job]bool{}
	for _, r := range rules {
		q := job{r.Owner, strings.TrimSpace(r.Query)}
		live[r.ID] = true
		queries[q] = true
		// Due within half a look: Run looks every second, a few microseconds early or late,
		// and a rule due a hair after a look must not wait for the next (a 10 s interval
		// evaluated every 11 s).
		if n, ok := e.next[r.ID]; ok && now.Add(lookSlack).Before(n) && !(arrived && mitigates(r)) {
			continue
		}
		e.next[r.ID] = now.Add(r.Interval)
		if due[q] == nil {
			order = append(order, q)
		}
		due[q] = append(due[q], r)
	}
	for id := range e.next {
		if !live[id] {
			delete(e.next, id)
			delete(e.quiet, id)
		}
	}
	for q, l := range e.live {
		if !queries[q] {
			l.Close()
			delete(e.live, q)
		}
	}
	e.mu.Unlock()
	// What each owner's rules hold bounds what the round writes (bounds), kept up to date as
	// the round writes.
	var loads map[string]state.AlertLoad
	if len(order) > 0 {
		if loads, err = e.s.store.Loads(ctx, now); err != nil {
			return err
		}
	}
	// Each query's rules are stepped as soon as it is answered, and the sender woken, so that
	// a rule's notification waits for the queries answered before its own, not for all.
	e.answerAll(ctx, order, now, func(q job, rows []pvql.Row, err error) {
		if ctx.Err() != nil {
			return
		}
		for _, r := range due[q] {
			e.s.evaluated(r, now, err)
		}
		if err != nil {
			return
		}
		wrote := false
		for _, r := range due[q] {
			if ctx.Err() != nil {
				return
			}
			e.mu.Lock()
			quiet := e.quiet[r.ID]
			e.mu.Unlock()
			if quiet && len(rows) == 0 {
				continue
			}
			var left, deferred int
			var ch state.AlertChange
			err := e.s.store.Evaluate(ctx, r.ID, func(cur []state.AlertInstance, sil map[string]bool) (state.AlertChange, error) {
				ch, deferred = step(r, channels(r), cur, sil, rows, now, e.s.opts.bounds(loads[r.Owner]))
				left = len(ch.Instances) + deferred
				return ch, nil
			})
			if err == nil {
				loads[r.Owner] = loads[r.Owner].Add(ch)
			}
			if err != nil && ctx.Err() == nil {
				e.s.log.Error("alerts: storing an evaluation", zap.String("rule", r.ID), zap.Error(err))
			}
			if err == nil && deferred > 0 {
				e.s.deferred(r, deferred)
			}
			e.mu.Lock()
			e.quiet[r.ID] = err == nil && left == 0
			e.mu.Unlock()
			wrote = true
		}
		if wrote {
			select {
			case e.s.wake <- struct{}{}:
			default:
			}
		}
	})
	if err := e.mit.pass(ctx, now, rules); err != nil && ctx.Err() == nil {
		e.s.log.Error("alerts: announcing routes", zap.Error(err))
	}
	if err := e.s.flush(ctx); err != nil && ctx.Err() == nil {
		e.s.log.Error("alerts: recording how the rules' evaluations went", zap.Error(err))
	}
	return ctx.Err()
}

// answerAll answers the distinct rule queries at now, calling out with each query's rows, or
// its error, as they come (answerShape): those of one owner and one family
// (pvql.Statement.Family: the same but for their HAVING and the literal of one `k = literal`
// term of their WHERE) with one read when Options.Each is set. Each query is answered with
// its owner in the context (Owner).
func (e *Evaluator) answerAll(ctx context.Context, queries []job, now time.Time, out func(q job, rows []pvql.Row, err error)) {
	var shapes []job // the owner and the family
	byShape := map[job][]string{}
	for _, q := range queries {
		shape := job{q.owner, "\x00" + q.query} // alone
		if e.s.opts.Each != nil {
			if sts, err := pvql.Parse(q.query); err == nil && len(sts) == 1 && !sts[0].HasBaseline() {
				shape.query = sts[0].Family()
			}
		}
		if byShape[shape] == nil {
			shapes = append(shapes, shape)
		}
		byShape[shape] = append(byShape[shape], q.query)
	}
	for _, shape := range shapes {
		if ctx.Err() != nil {
			break
		}
		e.answerShape(withOwner(ctx, shape.owner), shape.owner, byShape[shape], now, out)
	}
}

// answerShape answers qs, queries of one owner and one family, calling out with each one's
// rows: with one read when there are several and Options.Each is set, else one by one. A query
// that fails is logged.
func (e *Evaluator) answerShape(ctx context.Context, owner string, qs []string, now time.Time, out func(q job, rows []pvql.Row, err error)) {
	if len(qs) > 1 && e.s.opts.Each != nil {
		res, err := e.s.opts.Each(ctx, qs, now)
		if err == nil && len(res) == len(qs) {
			e.s.evaluations.Add(1)
			for i, q := range qs {
				out(job{owner, q}, res[i].Data, nil)
			}
			return
		}
		e.s.log.Warn("alerts: rule queries of one family failed together; answering each", zap.Error(err))
	}
	for _, q := range qs {
		if ctx.Err() != nil {
			return
		}
		res, err := e.answer(ctx, job{owner, q}, now)
		if err == nil && len(res) != 1 {
			err = errors.New("alerts: a rule query answered no statement")
		}
		if err != nil {
			e.s.log.Warn("alerts: rule query failed", zap.String("query", q), zap.Error(err))
			out(job{owner, q}, nil, err)
			continue
		}
		e.s.evaluations.Add(1)
		out(job{owner, q}, res[0].Data, nil)
	}
}

// answer answers one rule query at now: from its standing answer with Options.Live, which
// re-reads only what changed, else in full.
func (e *Evaluator) answer(ctx context.Context, q job, now time.Time) ([]pvql.Result, error) {
	if e.s.opts.Live == nil {
		return e.s.opts.Query(ctx, q.query, now)
	}
	e.mu.Lock()
	l, ok := e.live[q]
	e.mu.Unlock()
	if !ok {
		var err error
		if l, err = e.s.opts.Live(ctx, q.query); err != nil {
			return nil, err
		}
		e.mu.Lock()
		e.live[q] = l
		e.mu.Unlock()
	}
	return l.Answer(ctx, now)
}

// Close releases the standing answers the evaluator keeps and withdraws the routes it
// announced (the next evaluator announces them again from the firing state).
func (e *Evaluator) Close() {
	e.mit.release()
	if e.stored != nil {
		e.stored.Close()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for q, l := range e.live {
		l.Close()
		delete(e.live, q)
	}
}
