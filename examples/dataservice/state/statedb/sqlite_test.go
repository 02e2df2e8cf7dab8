package statedb_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/fnapi/fnapi/examples/dataservice/state/statetest"
)

func open(t *testing.T, dir string, opts ...statedb.Option) *statedb.SQLite {
	t.Helper()
	s, err := statedb.OpenSQLite(context.Background(), dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func TestRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := statedb.OpenSQLite(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	d := must[state.Dashboard](t)(s.CreateDashboard(ctx, state.Dashboard{Title: "kept", Description: "über ✓"}))
	must[state.Widget](t)(s.CreateWidget(ctx, state.Widget{Dashboard: d.ID, Title: "w", Kind: "number",
		Queries: []string{"records", "traffic"}, Options: json.RawMessage(`{"unit":"B"}`)}))
	must[map[string]string](t)(s.UpdateConfig(ctx, func(v map[string]string) error { v["retention"] = "2w"; return nil }))
	before := statetest.Snapshot(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Dashboards(ctx); err == nil {
		t.Error("a closed store answered")
	}

	s2 := open(t, dir)
	if after := statetest.Snapshot(t, s2); !reflect.DeepEqual(before, after) {
		t.Fatalf("after restart:\n%+v\nwant\n%+v", after, before)
	}
}

func TestSQLite(t *testing.T) {
	t.Parallel()
	statetest.Run(t, func(t *testing.T, opts ...statedb.Option) state.Store {
		return open(t, t.TempDir(), opts...)
	})
}

func TestSQLiteNewerSchemaRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	open(t, dir).Close()
	db, err := sql.Open("sqlite", filepath.Join(dir, statedb.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = statedb.OpenSQLite(context.Background(), dir)
	if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer than this program's") {
		t.Fatalf("opening a database of a newer schema: %v", err)
	}
}
