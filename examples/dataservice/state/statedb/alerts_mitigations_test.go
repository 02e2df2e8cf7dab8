package statedb_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

// TestAlertMitigations checks the routes alert rules announce, on SQLite and PostgreSQL:
// stored, replaced and deleted with their history events, the events' detail kept.
func TestAlertMitigations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	check := func(t *testing.T, db *statedb.SQLite) {
		a, err := statedb.OpenAlerts(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		at := time.UnixMilli(time.Now().UnixMilli()).UTC()
		route := json.RawMessage(`{"bgp":"blackhole","prefix":"198.51.100.7/32"}`)
		m := state.AlertMitigation{Rule: "r1", Group: `["198.51.100.7"]`, Kind: "blackhole", State: "announced", At: at, Route: route, Query: "q"}
		e := state.AlertEvent{Rule: "r1", Group: m.Group, State: "announced", Values: json.RawMessage("[1]"), At: at, Detail: route}
		if err := a.Mitigate(ctx, m, &e); err != nil {
			t.Fatal(err)
		}
		m.State = "withdrawn"
		if err := a.Mitigate(ctx, m, nil); err != nil {
			t.Fatal(err)
		}
		ms, err := a.Mitigations(ctx)
		if err != nil || len(ms) != 1 || ms[0].State != "withdrawn" || !ms[0].At.Equal(at) || string(ms[0].Route) != string(route) {
			t.Fatalf("mitigations %+v, %v", ms, err)
		}
		hs, err := a.History(ctx, state.AlertQuery{Rule: "r1"})
		if err != nil || len(hs) != 1 || string(hs[0].Detail) != string(route) {
			t.Fatalf("history %+v, %v", hs, err)
		}
		m.State = ""
		if err := a.Mitigate(ctx, m, nil); err != nil {
			t.Fatal(err)
		}
		if ms, err := a.Mitigations(ctx); err != nil || len(ms) != 0 {
			t.Fatalf("after the deletion: %+v, %v", ms, err)
		}
	}
	onBoth(t, check)
}

// onBoth runs check on a SQLite store and on a PostgreSQL one, in parallel.
func onBoth(t *testing.T, check func(t *testing.T, db *statedb.SQLite)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		db, err := statedb.OpenSQLite(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		check(t, db)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		pg := testenv.StartPostgres(t)
		check(t, openPostgres(t, pg.Database(t)).SQLite)
	})
}
