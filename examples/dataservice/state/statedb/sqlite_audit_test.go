package statedb_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

// TestAuditMigration opens a store made before the audit trail: it gains the table and keeps
// its data.
func TestAuditMigration(t *testing.T) {
	t.Parallel()
	dir := oldStore(t,
		`INSERT INTO config VALUES ('retention', '"7d"')`,
		`PRAGMA user_version = 1`,
	)
	s := open(t, dir)
	ctx := context.Background()
	if cfg := must[map[string]string](t)(s.Config(ctx)); cfg["retention"] != `"7d"` {
		t.Fatalf("config after migration %v", cfg)
	}
	if err := s.AppendAudit(ctx, state.AuditEvent{User: "admin", Address: "::1", Action: "delete-user"}); err != nil {
		t.Fatal(err)
	}
	if got := must[[]state.AuditEvent](t)(s.Audit(ctx, state.AuditQuery{Limit: 10})); len(got) != 1 {
		t.Fatalf("audit after migration %+v", got)
	}
}

// TestAuditActorMigration opens a store at schema version 2, whose audit table names its column
// of who acted "user": the events stay, read back with their user.
func TestAuditActorMigration(t *testing.T) {
	t.Parallel()
	dir := oldStore(t,
		`CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, time INTEGER NOT NULL, user TEXT NOT NULL, key TEXT NOT NULL,
			address TEXT NOT NULL, action TEXT NOT NULL, details TEXT NOT NULL)`,
		`INSERT INTO audit (time, user, key, address, action, details) VALUES (1, 'ann', 'ops', '::1', 'set-config', '{}')`,
		`PRAGMA user_version = 2`,
	)
	s := open(t, dir)
	ctx := context.Background()
	if err := s.AppendAudit(ctx, state.AuditEvent{User: "bob", Address: "::1", Action: "delete-user"}); err != nil {
		t.Fatal(err)
	}
	got := must[[]state.AuditEvent](t)(s.Audit(ctx, state.AuditQuery{Limit: 10}))
	if len(got) != 2 || got[0].User != "bob" || got[1].User != "ann" || got[1].Key != "ops" || got[1].ID >= got[0].ID {
		t.Fatalf("audit after migration %+v", got)
	}
}

// oldStore writes a state.db of schema version 1's tables, then runs more, and returns its
// directory.
func oldStore(t *testing.T, more ...string) string {
	t.Helper()
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, statedb.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range append([]string{
		`CREATE TABLE dashboards (id TEXT PRIMARY KEY, title TEXT NOT NULL, description TEXT NOT NULL, created INTEGER NOT NULL, updated INTEGER NOT NULL)`,
		`CREATE TABLE widgets (id TEXT PRIMARY KEY, dashboard TEXT NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE, title TEXT NOT NULL,
			kind TEXT NOT NULL, queries TEXT NOT NULL, options TEXT NOT NULL, created INTEGER NOT NULL, updated INTEGER NOT NULL)`,
		`CREATE TABLE config (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	}, more...) {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestQuotaMigration opens a store at schema version 4, before owners and sizes: its
// dashboards and widgets stay, owned by nobody (""), with their sizes counted.
func TestQuotaMigration(t *testing.T) {
	t.Parallel()
	dir := oldStore(t,
		`CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, time INTEGER NOT NULL, actor TEXT NOT NULL, key TEXT NOT NULL,
			address TEXT NOT NULL, action TEXT NOT NULL, details TEXT NOT NULL)`,
		`INSERT INTO dashboards VALUES ('d1', 'old', '', 1, 1)`,
		`INSERT INTO widgets VALUES ('w1', 'd1', 'w', 'table', '["`+strings.Repeat("x", 500)+`"]', '{}', 1, 1)`,
		`PRAGMA user_version = 4`,
	)
	s := open(t, dir, statedb.WithLimits(state.Limits{BytesPerUser: 600}))
	ctx := context.Background()
	d := must[state.Dashboard](t)(s.Dashboard(ctx, "d1"))
	if d.Owner != "" || len(d.Widgets) != 1 || d.Widgets[0].Owner != "" {
		t.Fatalf("after migration %+v", d)
	}
	_, err := s.CreateWidget(ctx, state.Widget{Dashboard: "d1", Title: "w2", Kind: "table", Queries: []string{strings.Repeat("y", 100)}})
	if !errors.Is(err, state.ErrLimit) {
		t.Fatalf("a widget past the bytes counted for the old ones: %v", err)
	}
	must[state.Widget](t)(s.CreateWidget(ctx, state.Widget{Dashboard: "d1", Title: "w2", Kind: "table", Queries: []string{"records"}, Owner: "ann"}))
}
