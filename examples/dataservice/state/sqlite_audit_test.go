package state_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// TestAudit checks the audit trail: what goes in comes out, newest first, from a time on, at
// most a limit, and the trail keeps only the newest Limits.AuditEvents events.
func TestAudit(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir(), state.WithLimits(state.Limits{AuditEvents: 5}))
	for i := range 8 {
		e := state.AuditEvent{User: "admin", Address: "192.0.2.1", Action: "set-config",
			Details: json.RawMessage(`{"n":` + string(rune('0'+i)) + `}`)}
		if i == 7 {
			e.Key, e.Details = "ops", nil
		}
		if err := s.AppendAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	all := must[[]state.AuditEvent](t)(s.Audit(ctx, time.Time{}, 100))
	if len(all) != 5 {
		t.Fatalf("%d events kept, want the newest 5: %+v", len(all), all)
	}
	first := all[0]
	if first.Key != "ops" || first.User != "admin" || first.Address != "192.0.2.1" || first.Action != "set-config" ||
		string(first.Details) != "{}" || first.Time.IsZero() {
		t.Fatalf("newest event %+v", first)
	}
	for i := 1; i < len(all); i++ {
		if all[i].ID >= all[i-1].ID || all[i].Time.After(all[i-1].Time) {
			t.Fatalf("not newest first: %+v", all)
		}
	}
	if string(all[4].Details) != `{"n":3}` {
		t.Fatalf("oldest kept %s, want n 3", all[4].Details)
	}
	if got := must[[]state.AuditEvent](t)(s.Audit(ctx, time.Time{}, 2)); len(got) != 2 || got[0].ID != first.ID {
		t.Fatalf("limit 2: %+v", got)
	}
	if got := must[[]state.AuditEvent](t)(s.Audit(ctx, all[1].Time, 100)); len(got) != 2 {
		t.Fatalf("since the second newest: %+v", got)
	}
}

// TestAuditMigration opens a store made before the audit trail: it gains the table and keeps
// its data.
func TestAuditMigration(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, state.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE dashboards (id TEXT PRIMARY KEY, title TEXT NOT NULL, description TEXT NOT NULL, created INTEGER NOT NULL, updated INTEGER NOT NULL)`,
		`CREATE TABLE widgets (id TEXT PRIMARY KEY, dashboard TEXT NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE, title TEXT NOT NULL,
			kind TEXT NOT NULL, queries TEXT NOT NULL, options TEXT NOT NULL, created INTEGER NOT NULL, updated INTEGER NOT NULL)`,
		`CREATE TABLE config (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`INSERT INTO config VALUES ('retention', '"7d"')`,
		`PRAGMA user_version = 1`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s := open(t, dir)
	ctx := context.Background()
	if cfg := must[map[string]string](t)(s.Config(ctx)); cfg["retention"] != `"7d"` {
		t.Fatalf("config after migration %v", cfg)
	}
	if err := s.AppendAudit(ctx, state.AuditEvent{User: "admin", Address: "::1", Action: "delete-user"}); err != nil {
		t.Fatal(err)
	}
	if got := must[[]state.AuditEvent](t)(s.Audit(ctx, time.Time{}, 10)); len(got) != 1 {
		t.Fatalf("audit after migration %+v", got)
	}
}
