package alerts

import (
	"context"
	"errors"
	"fmt"
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

// evaluation is how a rule's last evaluation went.
type evaluation struct {
	at      time.Time
	err     string // "" when its query answered
	warning string // what the rule cannot do here (noSpeaker), "" when nothing
}

// evaluated records how the evaluation of rule at went: err is its query's error, nil when it
// answered. A caller sees the error's code and attributes (an *apierr.Error, as package app's
// query functions answer them: TOO-MANY-GROUPS with the limit of one rule's groups,
// RATE-LIMITED...); any other error stays in the log.
func (s *Service) evaluated(rule state.AlertRule, at time.Time, err error) {
	ev := evaluation{at: at}
	if s.opts.Announcer == nil && mitigates(rule) {
		ev.warning = noSpeaker
	}
	var ae *apierr.Error
	switch {
	case err == nil:
	case errors.As(err, &ae):
		ev.err = ae.Error()
	default:
		ev.err = "the rule's query failed: the service's log says why"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status[rule.ID] = ev
}

// deferred records that n of rule's transitions wait for its next evaluations (bounds):
// the rule's warning says so until an evaluation makes them all.
func (s *Service) deferred(rule state.AlertRule, n int) {
	s.log.Warn("alerts: a rule's transitions wait for its next evaluations",
		zap.String("rule", rule.ID), zap.Int("waiting", n))
	s.mu.Lock()
	defer s.mu.Unlock()
	ev := s.status[rule.ID]
	w := fmt.Sprintf("%d transitions wait for the next evaluations: a rule makes at most %d an evaluation, its owner's rules %d an hour",
		n, s.opts.MaxTransitions, s.opts.MaxHourlyTransitions)
	if ev.warning != "" {
		w = ev.warning + "; " + w
	}
	ev.warning = w
	s.status[rule.ID] = ev
}

// forget drops the evaluations of the rules not in live.
func (s *Service) forget(live map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.status {
		if !live[id] {
			delete(s.status, id)
		}
	}
}

// withEvaluation adds to r how its last evaluation went, as this node saw it.
func (s *Service) withEvaluation(r api.AlertRule) api.AlertRule {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev, ok := s.status[r.ID]; ok {
		at := ev.at
		r.Evaluated, r.Error, r.Warning = &at, ev.err, ev.warning
	}
	return r
}
