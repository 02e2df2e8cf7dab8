package statetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// audit checks the audit trail: what goes in comes out, newest first, from a time on, at
// most a limit, and the trail keeps only the newest Limits.AuditEvents events.
func audit(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t, state.WithLimits(state.Limits{AuditEvents: 5}))
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
