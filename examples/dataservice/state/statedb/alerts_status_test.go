package statedb_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

// TestAlertStatuses checks, on SQLite and PostgreSQL, the rules' statuses every node reads:
// recorded in statements of many rows, replaced by the next round's, forgotten with their
// rule.
func TestAlertStatuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	onBoth(t, func(t *testing.T, db *statedb.SQLite) {
		a, err := statedb.OpenAlerts(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		at := time.UnixMilli(time.Now().UnixMilli()).UTC()
		var sts []state.AlertStatus
		for range 450 { // three statements
			r, err := a.CreateRule(ctx, state.AlertRule{Name: "r", Query: "records", Interval: time.Minute,
				Severity: "warning", Notify: json.RawMessage(`[]`)}, 1000)
			if err != nil {
				t.Fatal(err)
			}
			sts = append(sts, state.AlertStatus{Rule: r.ID, At: at, Error: "TOO-MANY-GROUPS"})
		}
		if err := a.SetStatuses(ctx, sts); err != nil {
			t.Fatal(err)
		}
		next := state.AlertStatus{Rule: sts[7].Rule, At: at.Add(time.Minute), Warning: "w"}
		if err := a.SetStatuses(ctx, []state.AlertStatus{next}); err != nil {
			t.Fatal(err)
		}
		if err := a.DeleteRule(ctx, sts[8].Rule); err != nil {
			t.Fatal(err)
		}
		got, err := a.Statuses(ctx)
		if err != nil || len(got) != 449 {
			t.Fatalf("%d statuses (%v), want 449", len(got), err)
		}
		if g := got[sts[0].Rule]; g.Error != "TOO-MANY-GROUPS" || !g.At.Equal(at) || g.Warning != "" {
			t.Errorf("first rule: %+v, want %+v", g, sts[0])
		}
		if g := got[next.Rule]; g.Error != "" || !g.At.Equal(next.At) || g.Warning != "w" {
			t.Errorf("rule evaluated again: %+v, want %+v", g, next)
		}
	})
}
