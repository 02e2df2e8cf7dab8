package manage_test

import (
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

// TestAuditTrailNotErasable checks, through the functions, that a caller cannot push other
// callers' events out of the audit trail: its own audited calls stop at its quota, with
// LIMIT-REACHED and nothing changed, and list-audit pages back to the oldest event.
func TestAuditTrailNotErasable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, statedb.WithLimits(state.Limits{AuditPerActor: 3}))
	e.must("set-config", map[string]any{"values": map[string]any{"audit_retention": "30d"}}, nil)
	for _, n := range []int{101, 102, 103} {
		if r := e.callAs("mallory", "set-config", map[string]any{"values": map[string]any{"rate_limit": n}}); !r.ok() {
			t.Fatalf("mallory's call %d: %s", n, r.raw)
		}
	}
	r := e.callAs("mallory", "set-config", map[string]any{"values": map[string]any{"rate_limit": 104}})
	if r.status != 409 || r.msg["error"] != "LIMIT-REACHED" || r.msg["name"] != "audit events" || r.msg["limit"] != 3.0 {
		t.Fatalf("an audited call past the caller's quota: %d %s", r.status, r.raw)
	}
	var cfg map[string]any
	e.must("get-config", nil, &cfg)
	if cfg["rate_limit"] != 103.0 {
		t.Fatalf("the refused call changed the configuration: rate_limit %v", cfg["rate_limit"])
	}

	var all []map[string]any
	for before := 0.0; ; {
		args := map[string]any{"limit": 2}
		if before > 0 {
			args["before"] = before
		}
		var page []map[string]any
		e.must("list-audit", args, &page)
		if len(page) == 0 {
			break
		}
		all = append(all, page...)
		before = page[len(page)-1]["id"].(float64)
	}
	if len(all) != 4 || all[3]["user"] != "tester" || all[0]["user"] != "mallory" {
		t.Fatalf("paging back by 2 read %v, want mallory's 3 events and then tester's", all)
	}
	if r := e.call("list-audit", map[string]any{"before": -1}); r.status != 400 {
		t.Fatalf("list-audit before -1: %d %s", r.status, r.raw)
	}
}
