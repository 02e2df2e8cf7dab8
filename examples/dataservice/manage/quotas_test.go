package manage_test

import (
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

// TestQuotasPerUser checks, through the functions, that one user filling its dashboards and
// bytes refuses nothing to another, and that dashboard changes are audited.
func TestQuotasPerUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t, statedb.WithLimits(state.Limits{DashboardsPerUser: 1, BytesPerUser: 25_000}))
	var d map[string]any
	if r := e.callAs("ann", "create-dashboard", map[string]any{"title": "Ann's"}); !r.ok() {
		t.Fatal(r.raw)
	} else {
		r.result(t, &d)
	}
	if r := e.callAs("ann", "create-dashboard", map[string]any{"title": "again"}); r.status != 409 ||
		r.msg["error"] != "LIMIT-REACHED" || r.msg["name"] != "dashboards" {
		t.Fatalf("ann's second dashboard of 1: %d %s", r.status, r.raw)
	}
	e.must("create-dashboard", map[string]any{"title": "the administrator's"}, nil)
	q := "records" + strings.Repeat(" ", 9_990)
	args := map[string]any{"dashboard": d["id"], "title": "big", "kind": "table", "queries": []string{q, q}}
	if r := e.callAs("ann", "create-widget", args); !r.ok() {
		t.Fatal(r.raw)
	}
	if r := e.callAs("ann", "create-widget", args); r.status != 409 || r.msg["name"] != "bytes" || r.msg["limit"] != 25_000.0 {
		t.Fatalf("ann's widgets past 25,000 bytes: %d %s", r.status, r.raw)
	}
	if r := e.call("create-widget", args); !r.ok() {
		t.Fatalf("the administrator's widget on ann's dashboard: %s", r.raw)
	}
	var events []map[string]any
	e.must("list-audit", map[string]any{"limit": 10}, &events)
	var actions []string
	for _, ev := range events {
		actions = append(actions, ev["user"].(string)+" "+ev["action"].(string))
	}
	if got := strings.Join(actions, ", "); got != "tester create-widget, ann create-widget, tester create-dashboard, ann create-dashboard" {
		t.Fatalf("audited: %s", got)
	}
}

// TestFullDiskUnavailable fills the store as a full disk would: the call answers UNAVAILABLE
// (503), never an internal error.
func TestFullDiskUnavailable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, statedb.WithMaxSize(256<<10))
	var d map[string]any
	e.must("create-dashboard", map[string]any{"title": "d"}, &d)
	q := "records" + strings.Repeat(" ", 9_990)
	for i := range 100 {
		r := e.call("create-widget", map[string]any{"dashboard": d["id"], "title": "w", "kind": "table", "queries": []string{q, q}})
		if r.ok() {
			continue
		}
		if r.status != 503 || r.msg["error"] != "UNAVAILABLE" {
			t.Fatalf("widget %d on a full disk: %d %s", i, r.status, r.raw)
		}
		return
	}
	t.Fatal("2 MB written into 256 KiB")
}
