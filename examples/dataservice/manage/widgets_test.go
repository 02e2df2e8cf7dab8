package manage_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/google/uuid"
)

func TestWidgetLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var d1, d2 map[string]any
	e.must("create-dashboard", map[string]any{"title": "one"}, &d1)
	e.must("create-dashboard", map[string]any{"title": "two"}, &d2)

	var w map[string]any
	e.must("create-widget", map[string]any{"dashboard": d1["id"], "title": "Top clients", "kind": "table",
		"queries": []string{"traffic BY client.ip TOP 10", "records"}}, &w)
	if got, want := keysOf(w), []string{"created", "dashboard", "id", "kind", "options", "queries", "title", "updated"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("widget keys %v, want %v", got, want)
	}
	if !isUUID(w["id"]) || w["dashboard"] != d1["id"] || w["title"] != "Top clients" || w["kind"] != "table" ||
		!reflect.DeepEqual(w["queries"], []any{"traffic BY client.ip TOP 10", "records"}) ||
		!reflect.DeepEqual(w["options"], map[string]any{}) || !isTime(w["created"]) || !isTime(w["updated"]) {
		t.Fatalf("created %v", w)
	}

	// Options are kept as given: key order and number text survive.
	const opts = `{"z":1,"a":{"stacked":true},"big":12345678901234567890}`
	var w2raw json.RawMessage
	e.must("create-widget", map[string]any{"dashboard": d1["id"], "title": "Volume", "kind": "timeseries",
		"queries": []string{"traffic BY time(60)"}, "options": json.RawMessage(opts)}, &w2raw)
	var w2 struct {
		ID      string          `json:"id"`
		Options json.RawMessage `json:"options"`
	}
	if err := json.Unmarshal(w2raw, &w2); err != nil || string(w2.Options) != opts {
		t.Fatalf("options %s, want %s (%v)", w2.Options, opts, err)
	}

	var full map[string]any
	e.must("get-dashboard", map[string]any{"id": d1["id"]}, &full)
	widgets := full["widgets"].([]any)
	if len(widgets) != 2 || !reflect.DeepEqual(widgets[0], w) || widgets[1].(map[string]any)["id"] != w2.ID {
		t.Fatalf("dashboard widgets %v", widgets)
	}

	steps := []struct {
		name  string
		args  map[string]any
		check func(map[string]any) bool
	}{
		{"title", map[string]any{"title": "Clients"}, func(u map[string]any) bool {
			return u["title"] == "Clients" && u["kind"] == "table"
		}},
		{"kind and queries", map[string]any{"kind": "bar", "queries": []string{"packets BY server.port"}}, func(u map[string]any) bool {
			return u["kind"] == "bar" && reflect.DeepEqual(u["queries"], []any{"packets BY server.port"}) && u["title"] == "Clients"
		}},
		{"options", map[string]any{"options": map[string]any{"limit": 5}}, func(u map[string]any) bool {
			return reflect.DeepEqual(u["options"], map[string]any{"limit": float64(5)})
		}},
		{"move", map[string]any{"dashboard": d2["id"]}, func(u map[string]any) bool {
			return u["dashboard"] == d2["id"] && u["kind"] == "bar" && reflect.DeepEqual(u["options"], map[string]any{"limit": float64(5)})
		}},
		{"nothing", map[string]any{}, func(u map[string]any) bool { return u["dashboard"] == d2["id"] }},
	}
	for _, st := range steps {
		t.Run("update "+st.name, func(t *testing.T) {
			args := map[string]any{"id": w["id"]}
			for k, v := range st.args {
				args[k] = v
			}
			var u map[string]any
			e.must("update-widget", args, &u)
			if u["id"] != w["id"] || u["created"] != w["created"] || !st.check(u) {
				t.Fatalf("updated %v", u)
			}
		})
	}
	var one, two map[string]any
	e.must("get-dashboard", map[string]any{"id": d1["id"]}, &one)
	e.must("get-dashboard", map[string]any{"id": d2["id"]}, &two)
	if len(one["widgets"].([]any)) != 1 || len(two["widgets"].([]any)) != 1 || two["widgets"].([]any)[0].(map[string]any)["id"] != w["id"] {
		t.Fatalf("after the move: %v and %v", one["widgets"], two["widgets"])
	}

	var ok bool
	e.must("delete-widget", map[string]any{"id": w["id"]}, &ok)
	if !ok {
		t.Fatal("delete-widget answered false")
	}
	checkError(t, e.call("delete-widget", map[string]any{"id": w["id"]}), 404, "NOT-FOUND", map[string]any{"name": w["id"], "object": "widget"})

	// Deleting a dashboard deletes its widgets.
	e.must("delete-dashboard", map[string]any{"id": d1["id"]}, &ok)
	checkError(t, e.call("update-widget", map[string]any{"id": w2.ID, "title": "x"}), 404, "NOT-FOUND", map[string]any{"name": w2.ID})
	checkError(t, e.call("delete-widget", map[string]any{"id": w2.ID}), 404, "NOT-FOUND", map[string]any{"name": w2.ID})
}

func TestWidgetBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var d map[string]any
	e.must("create-dashboard", map[string]any{"title": "d"}, &d)
	var w map[string]any
	e.must("create-widget", map[string]any{"dashboard": d["id"], "title": "w", "kind": "number", "queries": []string{"records"}}, &w)
	missing := uuid.NewString()
	good := func(extra map[string]any) map[string]any {
		args := map[string]any{"dashboard": d["id"], "title": "new", "kind": "pie", "queries": []string{"traffic BY protocol"}}
		for k, v := range extra {
			if v == nil {
				delete(args, k)
			} else {
				args[k] = v
			}
		}
		return args
	}
	upd := func(extra map[string]any) map[string]any {
		args := map[string]any{"id": w["id"]}
		for k, v := range extra {
			args[k] = v
		}
		return args
	}
	tests := []struct {
		name   string
		fn     string
		args   map[string]any
		status int
		code   string
		attrs  map[string]any
	}{
		{"unknown kind", "create-widget", good(map[string]any{"kind": "gauge"}), 400, "INVALID-ARGUMENT",
			map[string]any{"name": "kind", "reason": `must be one of "number", "table", "timeseries", "bar", "pie"`}},
		{"kind not a string", "create-widget", good(map[string]any{"kind": 3}), 400, "INVALID-ARGUMENT", map[string]any{"name": "kind"}},
		{"bad query", "create-widget", good(map[string]any{"queries": []string{"records", "trafic BY client.ip"}}), 400, "QUERY-SYNTAX",
			map[string]any{"index": float64(1), "position": float64(0)}},
		{"bad query late", "create-widget", good(map[string]any{"queries": []string{"traffic BY"}}), 400, "QUERY-SYNTAX",
			map[string]any{"index": float64(0), "position": float64(10)}},
		{"empty query", "create-widget", good(map[string]any{"queries": []string{""}}), 400, "QUERY-SYNTAX",
			map[string]any{"index": float64(0), "position": float64(0)}},
		{"no queries", "create-widget", good(map[string]any{"queries": []string{}}), 400, "INVALID-ARGUMENT",
			map[string]any{"name": "queries", "reason": "must have at least 1 items"}},
		{"too many queries", "create-widget", good(map[string]any{"queries": make([]string, 21)}), 400, "INVALID-ARGUMENT",
			map[string]any{"name": "queries", "reason": "must have at most 20 items"}},
		{"query too long", "create-widget", good(map[string]any{"queries": []string{"records", "records" + strings.Repeat(" ", 10000)}}),
			400, "INVALID-ARGUMENT", map[string]any{"name": "queries", "index": float64(1)}},
		{"queries not a list", "create-widget", good(map[string]any{"queries": "records"}), 400, "INVALID-ARGUMENT",
			map[string]any{"name": "queries"}},
		{"options not an object", "create-widget", good(map[string]any{"options": []int{1}}), 400, "INVALID-ARGUMENT",
			map[string]any{"name": "options", "reason": "must be a JSON object"}},
		{"options too large", "create-widget", good(map[string]any{"options": map[string]string{"x": strings.Repeat("x", 16<<10)}}),
			400, "INVALID-ARGUMENT", map[string]any{"name": "options"}},
		{"blank title", "create-widget", good(map[string]any{"title": "   "}), 400, "INVALID-ARGUMENT", map[string]any{"name": "title"}},
		{"long title", "create-widget", good(map[string]any{"title": strings.Repeat("t", 201)}), 400, "INVALID-ARGUMENT",
			map[string]any{"name": "title"}},
		{"missing kind", "create-widget", good(map[string]any{"kind": nil}), 400, "TOO-FEW-ARGUMENTS",
			map[string]any{"names": []any{"dashboard", "title", "kind", "queries"}, "count": float64(4)}},
		{"missing dashboard", "create-widget", good(map[string]any{"dashboard": missing}), 404, "NOT-FOUND",
			map[string]any{"name": missing, "object": "dashboard"}},
		{"update unknown kind", "update-widget", upd(map[string]any{"kind": "gauge", "title": "changed"}), 400, "INVALID-ARGUMENT",
			map[string]any{"name": "kind"}},
		{"update bad query", "update-widget", upd(map[string]any{"queries": []string{"records", "records", "traffic BY nothing"}, "title": "changed"}),
			400, "QUERY-SYNTAX", map[string]any{"index": float64(2), "position": float64(11)}},
		{"update empty queries", "update-widget", upd(map[string]any{"queries": []string{}}), 400, "INVALID-ARGUMENT",
			map[string]any{"name": "queries"}},
		{"update bad options", "update-widget", upd(map[string]any{"options": "wide", "title": "changed"}), 400, "INVALID-ARGUMENT",
			map[string]any{"name": "options"}},
		{"update move to missing dashboard", "update-widget", upd(map[string]any{"dashboard": missing, "title": "changed"}), 404, "NOT-FOUND",
			map[string]any{"name": missing, "object": "dashboard"}},
		{"update missing", "update-widget", map[string]any{"id": missing, "title": "x"}, 404, "NOT-FOUND",
			map[string]any{"name": missing, "object": "widget"}},
		{"delete missing", "delete-widget", map[string]any{"id": missing}, 404, "NOT-FOUND", map[string]any{"name": missing}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := e.snapshot()
			r := e.call(tt.fn, tt.args)
			checkError(t, r, tt.status, tt.code, tt.attrs)
			if tt.code == "QUERY-SYNTAX" {
				if s, _ := r.msg["expected"].(string); s == "" {
					t.Errorf("QUERY-SYNTAX without expected: %s", r.raw)
				}
				if s, _ := r.msg["message"].(string); s == "" { // as query answers it
					t.Errorf("QUERY-SYNTAX without message: %s", r.raw)
				}
			}
			if after := e.snapshot(); after != before {
				t.Errorf("a refused call changed the state:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func TestLimitReached(t *testing.T) {
	t.Parallel()
	e := newEnv(t, statedb.WithLimits(state.Limits{DashboardsPerUser: 1, WidgetsPerDashboard: 1}))
	var d map[string]any
	e.must("create-dashboard", map[string]any{"title": "only"}, &d)
	checkError(t, e.call("create-dashboard", map[string]any{"title": "second"}), 409, "LIMIT-REACHED",
		map[string]any{"name": "dashboards", "limit": float64(1)})
	args := map[string]any{"dashboard": d["id"], "title": "w", "kind": "number", "queries": []string{"records"}}
	e.must("create-widget", args, nil)
	checkError(t, e.call("create-widget", args), 409, "LIMIT-REACHED", map[string]any{"name": "widgets", "limit": float64(1)})
}
