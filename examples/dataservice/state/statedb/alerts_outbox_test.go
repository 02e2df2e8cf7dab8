package statedb_test

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

// TestAlertOutbox checks, on SQLite and PostgreSQL, what bounds an owner's outbox: Loads
// counts each owner's notifications waiting (not those done) and the events of the hour
// before; a
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
		evaluate := func(id string, ds ...state.AlertDelivery) {
			t.Helper()
			err := a.Evaluate(ctx, id, func([]state.AlertInstance, map[string]bool) (state.AlertChange, error) {
				return state.AlertChange{Events: []state.AlertEvent{{Rule: id, Group: "[]", State: "firing",
					Values: json.RawMessage("[1]"), At: t0, Deliveries: ds}}}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		loads := func(want map[string]state.AlertLoad) {
			t.Helper()
			got, err := a.Loads(ctx, t0)
			if err != nil || !maps.Equal(got, want) {
				t.Fatalf("loads at %v: %+v (%v), want %+v", t0, got, err, want)
			}
		}
		send := state.AlertDelivery{Target: "https://a.example/", Body: body}
		dropped := state.AlertDelivery{Target: "https://b.example/", Done: true, Error: "not sent: full"}
		loads(map[string]state.AlertLoad{})
		evaluate(anne1, send, send, dropped)
		evaluate(bob, send)
		evaluate(anne2)
		// Anne's 2 to send (not bob's, not the one done), her 2 events.
		loads(map[string]state.AlertLoad{"anne": {Waiting: 2, LastHour: 2}, "bob": {Waiting: 1, LastHour: 1}})
		t0 = t0.Add(time.Hour)
		loads(map[string]state.AlertLoad{"anne": {Waiting: 2}, "bob": {Waiting: 1}}) // the events an hour old
		evaluate(anne2)
		loads(map[string]state.AlertLoad{"anne": {Waiting: 2, LastHour: 1}, "bob": {Waiting: 1}})
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
		loads(map[string]state.AlertLoad{"anne": {Waiting: 1, LastHour: 1}, "bob": {Waiting: 1}})
	}
	onBoth(t, check)
}
