package statedb_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

// TestAlertOutbox checks, on SQLite and PostgreSQL, what bounds an owner's outbox: an
// evaluation is told how many notifications of its owner's rules wait (another owner's do not
// count, nor those done) and how many events its owner's rules made in the hour before; a
// delivery stored done is never claimed and keeps its error; a delivery done keeps no body.
func TestAlertOutbox(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	check := func(t *testing.T, db *statedb.SQLite) {
		a, err := statedb.OpenAlerts(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		rule := func(owner string) string {
			r, err := a.CreateRule(ctx, state.AlertRule{Name: "r", Query: "records", Interval: time.Minute,
				Severity: "warning", Notify: json.RawMessage(`[]`), Owner: owner}, 100)
			if err != nil {
				t.Fatal(err)
			}
			return r.ID
		}
		anne1, anne2, bob := rule("anne"), rule("anne"), rule("bob")
		body := []byte(strings.Repeat("b", 1000))
		t0 := time.Now()
		var load state.AlertLoad // of the last evaluation
		evaluate := func(id string, ds ...state.AlertDelivery) (waiting int) {
			t.Helper()
			err := a.Evaluate(ctx, id, t0, func(_ []state.AlertInstance, _ map[string]bool, l state.AlertLoad) (state.AlertChange, error) {
				load = l
				return state.AlertChange{Events: []state.AlertEvent{{Rule: id, Group: "[]", State: "firing",
					Values: json.RawMessage("[1]"), At: t0, Deliveries: ds}}}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return load.Waiting
		}
		send := state.AlertDelivery{Target: "https://a.example/", Body: body}
		dropped := state.AlertDelivery{Target: "https://b.example/", Done: true, Error: "not sent: full"}
		if w := evaluate(anne1, send, send, dropped); w != 0 {
			t.Fatalf("first evaluation: %d waiting, want 0", w)
		}
		evaluate(bob, send)
		if w := evaluate(anne2); w != 2 || load.LastHour != 1 {
			t.Fatalf("anne's second rule: %+v, want anne's 2 waiting (not bob's, not the one done) and 1 event", load)
		}
		t0 = t0.Add(time.Hour)
		if evaluate(anne1); load.LastHour != 0 {
			t.Fatalf("an hour later: %+v, want no event in the hour before", load)
		}
		if evaluate(anne2); load.LastHour != 1 {
			t.Fatalf("then: %+v, want the event just made", load)
		}
		ds, err := a.Claim(ctx, time.Now().Add(time.Minute), time.Minute, 100)
		if err != nil || len(ds) != 3 {
			t.Fatalf("claimed %d (%v), want the 3 to send", len(ds), err)
		}
		cs, err := a.Channels(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var shown bool
		for _, c := range cs {
			shown = shown || (c.Rule == anne1 && c.Target == dropped.Target && c.Done && c.Error == dropped.Error)
		}
		if !shown {
			t.Fatalf("channels %+v: want %s done with %q", cs, dropped.Target, dropped.Error)
		}
		if n, err := statedb.BodyBytes(ctx, a); err != nil || n != 3000 {
			t.Fatalf("bodies %d bytes (%v), want 3000", n, err)
		}
		if err := a.Finish(ctx, ds[0].ID, true, "", time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := a.Finish(ctx, ds[1].ID, false, "502", time.Now()); err != nil {
			t.Fatal(err)
		}
		if n, err := statedb.BodyBytes(ctx, a); err != nil || n != 2000 {
			t.Fatalf("bodies %d bytes (%v) after one was sent, want 2000", n, err)
		}
		if w := evaluate(anne2); w != 1 {
			t.Fatalf("after one was sent: %d waiting, want 1", w)
		}
	}
	onBoth(t, check)
}
