package alerts

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"go.uber.org/zap"
)

// ownerKey is the context key of Owner.
type ownerKey struct{}

// withOwner returns ctx naming owner as the owner of the rules whose query is answered.
func withOwner(ctx context.Context, owner string) context.Context {
	return context.WithValue(ctx, ownerKey{}, owner)
}

// Owner returns the owner (state.AlertRule.Owner) of the rules whose query Options.Query,
// Options.Each or Options.Live answers with ctx: the user whose share of the standing groups
// what the answer keeps counts against. "" outside an evaluation.
func Owner(ctx context.Context) string {
	o, _ := ctx.Value(ownerKey{}).(string)
	return o
}

// evaluated records how the evaluation of rule at went: err is its query's error, nil when it
// answered. A caller sees the error's code and attributes (an *apierr.Error, as package app's
// query functions answer them: TOO-MANY-GROUPS with the limit of one rule's groups,
// RATE-LIMITED...); any other error stays in the log. flush writes it.
func (s *Service) evaluated(rule state.AlertRule, at time.Time, err error) {
	st := state.AlertStatus{Rule: rule.ID, At: at}
	if s.opts.Announcer == nil && mitigates(rule) {
		st.Warning = noSpeaker
	}
	var ae *apierr.Error
	switch {
	case err == nil:
	case errors.As(err, &ae):
		st.Error = ae.Error()
	default:
		st.Error = "the rule's query failed: the service's log says why"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status[rule.ID] = st
}

// deferred records that n of rule's transitions wait for its next evaluations (bounds):
// the rule's warning says so until an evaluation makes them all.
func (s *Service) deferred(rule state.AlertRule, n int) {
	s.log.Warn("alerts: a rule's transitions wait for its next evaluations",
		zap.String("rule", rule.ID), zap.Int("deferred", n))
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status[rule.ID]
	w := fmt.Sprintf("%d transitions wait for the next evaluations: a rule makes at most %d an evaluation, its owner's rules %d an hour; "+
		"a query with fewer groups (a stricter HAVING, TOP) makes fewer", n, s.opts.MaxTransitions, s.opts.MaxHourlyTransitions)
	if st.Warning != "" {
		w = st.Warning + "; " + w
	}
	st.Warning = w
	s.status[rule.ID] = st
}

// flush writes the statuses of the rules evaluated since the last flush to the store, where
// every node reads them (withEvaluation): the node evaluating the rules is not the only one
// answering list-alert-rules.
func (s *Service) flush(ctx context.Context) error {
	s.mu.Lock()
	sts := slices.Collect(maps.Values(s.status))
	clear(s.status)
	s.mu.Unlock()
	if len(sts) == 0 {
		return nil
	}
	return s.store.SetStatuses(ctx, sts)
}

// withEvaluation adds to r how its last evaluation went, from sts (statedb.Alerts.Statuses).
func withEvaluation(r api.AlertRule, sts map[string]state.AlertStatus) api.AlertRule {
	if st, ok := sts[r.ID]; ok {
		at := st.At
		r.Evaluated, r.Error, r.Warning = &at, st.Error, st.Warning
	}
	return r
}
