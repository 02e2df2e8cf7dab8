package alerts_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// TestEvaluationBounds checks what one rule over records anyone may ingest can write: at most
// MaxTransitions transitions an evaluation, the others made by the next evaluations (none
// lost, the rule's warning saying so meanwhile, on every node); and, once MaxWaiting notifications of its
// owner's rules wait, transitions recorded but not sent, which the channels show. The third
// audit's rule (10 webhooks, 200 groups) wrote 2,000 notifications in one evaluation.
func TestEvaluationBounds(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, "s3cret")
	o := rcv.options()
	o.MaxTransitions, o.MaxWaiting = 10, 25
	e := newEnv(t, o)
	ctx := context.Background()
	o.Query = func(context.Context, string, time.Time) ([]pvql.Result, error) { return nil, nil }
	other, err := alerts.New(e.st, o) // another node over the same store, not evaluating
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	var hooks []alerts.Channel
	for i := range 3 {
		hooks = append(hooks, alerts.Channel{Webhook: fmt.Sprintf("%s/hook%d", rcv.srv.URL, i), Secret: "s3cret"})
	}
	r := e.rule(t, state.AlertRule{Name: "busy servers", Severity: "warning", Owner: "anne",
		Query: "traffic BY server.ip HAVING traffic > 1000 SINCE @now-300", Notify: notify(t, hooks...)})
	for i := range 25 {
		e.traffic(t, t0.Unix()-10, fmt.Sprintf("10.0.1.%d", i+1), 5000)
	}
	type want struct{ instances, firing, resolved, waiting int }
	check := func(at time.Duration, w want, warning string) {
		t.Helper()
		e.tick(t, t0.Add(at))
		ins, err := e.st.Instances(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		var firing, resolved int
		for _, s := range e.states(t, r.ID) {
			firing += b2i(strings.HasPrefix(s, alerts.Firing))
			resolved += b2i(strings.HasPrefix(s, alerts.Resolved))
		}
		ds, err := e.st.Claim(ctx, time.Now(), 0, 10000) // due again at once
		if err != nil {
			t.Fatal(err)
		}
		got := want{len(ins), firing, resolved, len(ds)}
		if got != w {
			t.Fatalf("at +%v: %+v, want %+v", at, got, w)
		}
		for _, svc := range []*alerts.Service{e.svc, other} {
			rules, err := alerts.ListRules(svc, ctx)
			if err != nil || len(rules) != 1 || !strings.Contains(rules[0].Warning, warning) || (warning == "") != (rules[0].Warning == "") ||
				rules[0].Evaluated == nil || !rules[0].Evaluated.Equal(t0.Add(at)) {
				t.Fatalf("at +%v: rules %+v (%v), want the warning %q, evaluated then, on both nodes", at, rules, err, warning)
			}
		}
	}
	// 25 groups fire; 10 an evaluation; each notifies 3 channels, 8 of them fit in 25.
	check(0, want{10, 10, 0, 24}, "15 transitions wait for the next evaluations: a rule makes at most 10")
	check(10*time.Second, want{20, 20, 0, 24}, "5 transitions wait")
	check(20*time.Second, want{25, 25, 0, 24}, "")
	rules, err := alerts.ListRules(e.svc, ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rules[0].Channels {
		if c.OK || !strings.HasPrefix(c.Error, "not sent: ") {
			t.Errorf("channel %+v: want the latest notification not sent, and why", c)
		}
	}
	// Once sent, the room is back: the resolutions, 10 an evaluation, notify again.
	if err := e.svc.Deliver(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got, _, bad := rcv.deliveries(); len(got) != 24 || len(bad) > 0 {
		t.Fatalf("receiver: %d notifications, bad signatures %q; want 24", len(got), bad)
	}
	check(400*time.Second, want{15, 25, 10, 24}, "15 transitions wait")
	check(410*time.Second, want{5, 25, 20, 24}, "5 transitions wait")
	check(420*time.Second, want{0, 25, 25, 24}, "")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestHourlyTransitions checks that one owner's rules make at most MaxHourlyTransitions
// transitions in an hour, the others waiting until the hour has passed, and that another
// owner's rules are not held back.
func TestHourlyTransitions(t *testing.T) {
	t.Parallel()
	o := alerts.Options{MaxTransitions: 10, MaxHourlyTransitions: 15}
	e := newEnv(t, o)
	ctx := context.Background()
	t0 := time.Now().Truncate(time.Hour).Add(-3 * time.Hour)
	rule := func(owner string) string {
		return e.rule(t, state.AlertRule{Name: "busy servers", Severity: "warning", Owner: owner,
			Query: "traffic BY server.ip HAVING traffic > 1000 SINCE @now-7200"}).ID
	}
	anne, bob := rule("anne"), rule("bob")
	for i := range 25 {
		e.traffic(t, t0.Unix()-10, fmt.Sprintf("10.0.2.%d", i+1), 5000)
	}
	alerting := func(at time.Duration, id string) int {
		t.Helper()
		e.tick(t, t0.Add(at))
		ins, err := e.st.Instances(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return len(ins)
	}
	for _, step := range []struct {
		at        time.Duration
		anne, bob int
	}{{0, 10, 10}, {10 * time.Second, 15, 15}, {20 * time.Second, 15, 15}, {time.Hour - time.Second, 15, 15},
		{time.Hour + 10*time.Second, 25, 25}} {
		if a, b := alerting(step.at, anne), len(mustInstances(t, e, bob)); a != step.anne || b != step.bob {
			t.Fatalf("at +%v: anne's rule %d alerts, bob's %d; want %d and %d", step.at, a, b, step.anne, step.bob)
		}
	}
}

func mustInstances(t *testing.T, e *env, rule string) []state.AlertInstance {
	t.Helper()
	ins, err := e.st.Instances(context.Background(), rule)
	if err != nil {
		t.Fatal(err)
	}
	return ins
}
