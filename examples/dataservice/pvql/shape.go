package pvql

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Shape returns the statement's text without its HAVING clause, white space collapsed:
// statements of one shape read and group the same records the same way, and differ only in
// which groups they keep. Alert rules that differ only in their thresholds have one shape,
// and AnswerEach answers them with one read.
func (s *Statement) Shape() string { return s.shape }

// shapeOf cuts the HAVING clause at having out of src[from:to] and collapses white space.
func shapeOf(src string, from, to int, having [2]int) string {
	text := src[from:to]
	if having[1] > having[0] {
		text = src[from:having[0]] + " " + src[having[1]:to]
	}
	return strings.Join(strings.Fields(text), " ")
}

// errShapes is the error of AnswerEach given statements it cannot answer together.
var errShapes = errors.New("pvql: AnswerEach: statements of different families, or with baselines")

// AnswerEach answers statements of one family (Family; the same shape when they have no
// equality term to merge) with one read of the store (one per MaxFamilyRead literals): the
// groups and their sums once, and their values, then each statement's HAVING, TOP and order
// on them (the results' rows share their Values: read them, do not change them). The answers
// equal Query's for each statement alone. No statement may hold a baseline.
func (e *Engine) AnswerEach(ctx context.Context, stmts []*Statement, now time.Time, defaultPeriod time.Duration) ([]Result, error) {
	if len(stmts) == 0 {
		return nil, nil
	}
	if stmts[0].eq != nil {
		for _, st := range stmts {
			if st.family != stmts[0].family || st.eq == nil || st.eq.field != stmts[0].eq.field {
				return nil, errShapes
			}
		}
		return e.answerFamily(ctx, stmts, now, defaultPeriod)
	}
	start := time.Now()
	first := stmts[0]
	var need [records.NumSums]bool
	for _, st := range stmts {
		if st.shape != first.shape || len(st.baselines()) > 0 {
			return nil, errShapes
		}
		for _, s := range neededSums(st) {
			need[s] = true
		}
	}
	s, res, err := e.readOnce(ctx, first, &need, now, defaultPeriod)
	if err != nil {
		return nil, err
	}
	defer res.release()
	out := make([]Result, len(stmts))
	vals := s.values() // the same text but for HAVING: the same values, computed once
	for i, st := range stmts {
		s.st = st
		out[i] = s.resultOf(vals)
		out[i].Meta.Elapsed = time.Since(start).Seconds()
	}
	return out, nil
}

// HasBaseline reports whether the statement holds a baseline (which AnswerEach refuses).
func (s *Statement) HasBaseline() bool { return len(s.baselines()) > 0 }

// readOnce reads the groups of st (its keys and WHERE, over its period at now) with the sums
// need marks, in one scan: the one read that statements of one shape, or of one family, share.
// The caller releases res once it is done with the groups.
func (e *Engine) readOnce(ctx context.Context, st *Statement, need *[records.NumSums]bool, now time.Time, defaultPeriod time.Duration) (*state, *reservation, error) {
	q := compile(st, e.maxGroups)
	q.Sums = q.Sums[:0]
	for s, ok := range need {
		if ok {
			q.Sums = append(q.Sums, records.Sum(s))
		}
	}
	s := &state{st: st, query: q, slots: layout(st.keys)}
	s.groups = groupsOf(s.slots)
	s.since, s.until = period(st, now, defaultPeriod)
	res := &reservation{bs: e.queryBs}
	if st.layer == lQueue {
		if err := e.readQueue(ctx, []*state{s}); err != nil {
			res.release()
			return nil, nil, err
		}
		return s, res, nil
	}
	if s.since < s.until {
		total := 0
		sc := &scan{plan: e.store.Compile(q), states: []*state{s}, index: []int{1}}
		if err := e.read(ctx, sc, s.since, s.until, res, &total); err != nil {
			res.release()
			return nil, nil, err
		}
		s.covered = s.until - s.since
	}
	return s, res, nil
}
