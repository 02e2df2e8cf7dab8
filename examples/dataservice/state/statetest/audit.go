package statetest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

// audit checks the audit trail: what goes in comes out, newest first, from a time on, at
// most a limit, paged back to the oldest event; no number of events drops another, only
// PruneAudit does, by age; AuditQuota counts each actor's events since a time;
// AppendAuditBounded is never refused and keeps the actor's trail bounded.
func audit(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t, statedb.WithLimits(state.Limits{AuditPerActor: 5}))
	if err := s.AppendAudit(ctx, state.AuditEvent{User: "admin", Address: "192.0.2.1", Action: "set-role",
		Details: json.RawMessage(`{"user":"mallory","role":"read-only"}`)}); err != nil {
		t.Fatal(err)
	}
	// A read-only user creating and revoking keys in a loop, past its quota.
	for i := range 12 {
		e := state.AuditEvent{User: "mallory", Address: "198.51.100.7", Action: "create-api-key",
			Details: json.RawMessage(`{"n":` + string(rune('a'+i)) + `}`)}
		if i == 11 {
			e.Key, e.Details = "ops", nil
		}
		if err := s.AppendAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	all := must[[]state.AuditEvent](t)(s.Audit(ctx, state.AuditQuery{Limit: 100}))
	if len(all) != 13 {
		t.Fatalf("%d events kept of 13: %+v", len(all), all)
	}
	first, oldest := all[0], all[12]
	if first.Key != "ops" || first.User != "mallory" || first.Address != "198.51.100.7" ||
		first.Action != "create-api-key" || string(first.Details) != "{}" || first.Time.IsZero() {
		t.Fatalf("newest event %+v", first)
	}
	if oldest.User != "admin" || string(oldest.Details) != `{"user":"mallory","role":"read-only"}` {
		t.Fatalf("the administrator's event was pushed out by another actor's: oldest %+v", oldest)
	}
	for i := 1; i < len(all); i++ {
		if all[i].ID >= all[i-1].ID || all[i].Time.After(all[i-1].Time) {
			t.Fatalf("not newest first: %+v", all)
		}
	}
	if got := must[[]state.AuditEvent](t)(s.Audit(ctx, state.AuditQuery{Limit: 2})); len(got) != 2 || got[0].ID != first.ID {
		t.Fatalf("limit 2: %+v", got)
	}
	if got := must[[]state.AuditEvent](t)(s.Audit(ctx, state.AuditQuery{Since: all[1].Time, Limit: 100})); len(got) != 2 {
		t.Fatalf("since the second newest: %+v", got)
	}

	// Paging back with Before reaches the oldest event, each once.
	var paged []state.AuditEvent
	for q := (state.AuditQuery{Limit: 5}); ; {
		page := must[[]state.AuditEvent](t)(s.Audit(ctx, q))
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		q.Before = page[len(page)-1].ID
	}
	if len(paged) != len(all) || paged[len(paged)-1].ID != oldest.ID {
		t.Fatalf("paging back by 5 read %d events, want %d down to ID %d", len(paged), len(all), oldest.ID)
	}

	var le *state.LimitError
	if err := s.AuditQuota(ctx, "mallory", time.Time{}); !errors.As(err, &le) || !errors.Is(err, state.ErrLimit) || le.Limit != 5 {
		t.Fatalf("quota of an actor with 12 events of 5: %v", err)
	}
	if err := s.AuditQuota(ctx, "admin", time.Time{}); err != nil {
		t.Fatalf("quota of an actor with 1 event of 5: %v", err)
	}
	// A user of the same name created after those events starts afresh.
	if err := s.AuditQuota(ctx, "mallory", first.Time.Add(time.Millisecond)); err != nil {
		t.Fatalf("quota of an actor created after its name's events: %v", err)
	}
	// Past the quota, a security event is written, in place of the oldest of its action.
	for range 3 {
		if err := s.AppendAuditBounded(ctx, state.AuditEvent{User: "mallory", Address: "198.51.100.7", Action: "revoke-api-key"}, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	var revokes int
	for _, e := range must[[]state.AuditEvent](t)(s.Audit(ctx, state.AuditQuery{Limit: 100})) {
		if e.Action == "revoke-api-key" {
			revokes++
		}
	}
	if revokes != 1 {
		t.Fatalf("%d revoke-api-key events past the quota, want 1: the latest", revokes)
	}
	if err := s.AppendAuditBounded(ctx, state.AuditEvent{User: "admin", Address: "192.0.2.1", Action: "delete-user"}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if got := must[[]state.AuditEvent](t)(s.Audit(ctx, state.AuditQuery{Limit: 100})); len(got) != 15 || got[len(got)-1].ID != oldest.ID {
		t.Fatalf("under the quota, a security event replaced another: %d events, oldest %+v", len(got), got[len(got)-1])
	}

	// Pruning deletes by age alone.
	n, err := s.PruneAudit(ctx, all[10].Time)
	if err != nil || n != 2 {
		t.Fatalf("pruning before the third oldest deleted %d, %v; want 2", n, err)
	}
	left := must[[]state.AuditEvent](t)(s.Audit(ctx, state.AuditQuery{Limit: 100}))
	if len(left) != 13 || left[12].ID != all[10].ID {
		t.Fatalf("after pruning: %d events, oldest %+v", len(left), left[len(left)-1])
	}
	if n := must[int64](t)(s.PruneAudit(ctx, time.Time{})); n != 0 {
		t.Fatalf("pruning before the zero time deleted %d", n)
	}
}
