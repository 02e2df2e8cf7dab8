package manage_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func keysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func isUUID(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

func isTime(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

func TestDashboardLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if r := e.call("list-dashboards", nil); !r.ok() || !strings.Contains(r.raw, `"result":[]`) {
		t.Fatalf("list-dashboards of an empty store: %d %s, want []", r.status, r.raw)
	}

	var d map[string]any
	e.must("create-dashboard", map[string]any{"title": "Traffic", "description": "all of it"}, &d)
	if got, want := keysOf(d), []string{"created", "description", "id", "title", "updated", "widgets"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("dashboard keys %v, want %v", got, want)
	}
	if !isUUID(d["id"]) || d["title"] != "Traffic" || d["description"] != "all of it" || !isTime(d["created"]) || !isTime(d["updated"]) {
		t.Fatalf("created %v", d)
	}
	if w, ok := d["widgets"].([]any); !ok || len(w) != 0 {
		t.Fatalf("widgets %#v, want []", d["widgets"])
	}
	id := d["id"]

	var noDesc map[string]any
	e.must("create-dashboard", map[string]any{"title": "Traffic"}, &noDesc) // titles need not be unique
	if noDesc["description"] != "" || noDesc["id"] == id {
		t.Fatalf("second dashboard %v", noDesc)
	}

	var got map[string]any
	e.must("get-dashboard", map[string]any{"id": id}, &got)
	if !reflect.DeepEqual(got, d) {
		t.Fatalf("get-dashboard %v, want %v", got, d)
	}

	var list []map[string]any
	e.must("list-dashboards", nil, &list)
	if len(list) != 2 || list[0]["id"] != id || list[1]["id"] != noDesc["id"] {
		t.Fatalf("list %v", list)
	}
	if got, want := keysOf(list[0]), []string{"created", "description", "id", "title", "updated"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("listed dashboard keys %v, want %v", got, want)
	}

	tests := []struct {
		name     string
		args     map[string]any
		title    string
		descript string
	}{
		{"title only", map[string]any{"title": "Traffic (all)"}, "Traffic (all)", "all of it"},
		{"description only", map[string]any{"description": "everything"}, "Traffic (all)", "everything"},
		{"both", map[string]any{"title": "T", "description": ""}, "T", ""},
		{"nothing", map[string]any{}, "T", ""},
		{"null is left out", map[string]any{"title": nil, "description": nil}, "T", ""},
	}
	for _, tt := range tests {
		t.Run("update "+tt.name, func(t *testing.T) {
			args := map[string]any{"id": id}
			for k, v := range tt.args {
				args[k] = v
			}
			var up map[string]any
			e.must("update-dashboard", args, &up)
			if up["id"] != id || up["title"] != tt.title || up["description"] != tt.descript || up["created"] != d["created"] {
				t.Fatalf("updated %v", up)
			}
			var again map[string]any
			e.must("get-dashboard", map[string]any{"id": id}, &again)
			if !reflect.DeepEqual(again, up) {
				t.Fatalf("get-dashboard after update %v, want %v", again, up)
			}
		})
	}

	var ok bool
	e.must("delete-dashboard", map[string]any{"id": id}, &ok)
	if !ok {
		t.Fatal("delete-dashboard answered false")
	}
	r := e.call("get-dashboard", map[string]any{"id": id})
	if r.status != 404 || r.msg["error"] != "NOT-FOUND" || r.msg["name"] != id {
		t.Fatalf("get-dashboard of a deleted dashboard: %d %s", r.status, r.raw)
	}
	e.must("list-dashboards", nil, &list)
	if len(list) != 1 || list[0]["id"] != noDesc["id"] {
		t.Fatalf("list after delete %v", list)
	}
}

func TestDashboardBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var d map[string]any
	e.must("create-dashboard", map[string]any{"title": "kept"}, &d)
	id := d["id"]
	missing := uuid.NewString()
	tests := []struct {
		name   string
		fn     string
		args   map[string]any
		status int
		code   string
		attrs  map[string]any
	}{
		{"no title", "create-dashboard", map[string]any{}, 400, "TOO-FEW-ARGUMENTS",
			map[string]any{"names": []any{"title"}, "count": float64(1)}},
		{"empty title", "create-dashboard", map[string]any{"title": ""}, 400, "INVALID-ARGUMENT", map[string]any{"name": "title"}},
		{"blank title", "create-dashboard", map[string]any{"title": "  "}, 400, "INVALID-ARGUMENT",
			map[string]any{"name": "title", "reason": "must hold a visible character"}},
		{"zero-width title", "create-dashboard", map[string]any{"title": "\u200b\u200b\ufeff"}, 400, "INVALID-ARGUMENT",
			map[string]any{"name": "title", "reason": "must hold a visible character"}},
		{"NUL in a title", "create-dashboard", map[string]any{"title": "a\x00b"}, 400, "INVALID-ARGUMENT",
			map[string]any{"name": "title", "reason": "must not hold control characters (U+0000 at byte 1)"}},
		{"line break in a title", "create-dashboard", map[string]any{"title": "a\nb"}, 400, "INVALID-ARGUMENT", map[string]any{"name": "title"}},
		{"bidi override in a title", "create-dashboard", map[string]any{"title": "cost\u202egnp.exe"}, 400, "INVALID-ARGUMENT",
			map[string]any{"name": "title", "reason": "must not hold bidirectional formatting characters (U+202E at byte 4)"}},
		{"bidi isolate in a widget title", "create-widget", map[string]any{"dashboard": "x", "title": "\u2067x", "kind": "pie", "queries": []string{"traffic"}},
			400, "INVALID-ARGUMENT", map[string]any{"name": "title"}},
		{"long title", "create-dashboard", map[string]any{"title": strings.Repeat("é", 201)}, 400, "INVALID-ARGUMENT",
			map[string]any{"name": "title", "reason": "must have at most 200 characters"}},
		{"title not a string", "create-dashboard", map[string]any{"title": 7}, 400, "INVALID-ARGUMENT", map[string]any{"name": "title"}},
		{"long description", "create-dashboard", map[string]any{"title": "x", "description": strings.Repeat("d", 4001)}, 400,
			"INVALID-ARGUMENT", map[string]any{"name": "description"}},
		{"unknown argument", "create-dashboard", map[string]any{"title": "x", "color": "red"}, 400, "UNKNOWN-ARGUMENTS",
			map[string]any{"names": []any{"color"}}},
		{"get missing", "get-dashboard", map[string]any{"id": missing}, 404, "NOT-FOUND",
			map[string]any{"name": missing, "object": "dashboard"}},
		{"get not a UUID", "get-dashboard", map[string]any{"id": "nope"}, 404, "NOT-FOUND", map[string]any{"name": "nope"}},
		{"get long id", "get-dashboard", map[string]any{"id": strings.Repeat("a", 65)}, 400, "INVALID-ARGUMENT",
			map[string]any{"name": "id"}},
		{"update missing", "update-dashboard", map[string]any{"id": missing, "title": "x"}, 404, "NOT-FOUND",
			map[string]any{"name": missing}},
		{"update blank title", "update-dashboard", map[string]any{"id": id, "title": "  ", "description": "changed"}, 400,
			"INVALID-ARGUMENT", map[string]any{"name": "title"}},
		{"delete missing", "delete-dashboard", map[string]any{"id": missing}, 404, "NOT-FOUND", map[string]any{"name": missing}},
		{"delete no id", "delete-dashboard", map[string]any{}, 400, "TOO-FEW-ARGUMENTS", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := e.snapshot()
			r := e.call(tt.fn, tt.args)
			checkError(t, r, tt.status, tt.code, tt.attrs)
			if after := e.snapshot(); after != before {
				t.Errorf("a refused call changed the state:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func TestTokenNeeded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, fn := range []string{"list-dashboards", "get-dashboard", "create-dashboard", "update-dashboard",
		"delete-dashboard", "create-widget", "update-widget", "delete-widget", "get-config", "set-config"} {
		t.Run(fn, func(t *testing.T) {
			// Arguments are wrong on purpose: authentication is checked first.
			r := e.do(fn, map[string]any{"bogus": 1}, false)
			checkError(t, r, 401, "API-AUTHENTICATION-NEEDED", map[string]any{"path": fn})
		})
	}
}

// checkError fails the test unless r is the error code with the status and (at least) attrs.
func checkError(t *testing.T, r reply, status int, code string, attrs map[string]any) {
	t.Helper()
	if r.status != status || r.msg["type"] != "error" || r.msg["error"] != code {
		t.Fatalf("got %d %s, want %d %s", r.status, r.raw, status, code)
	}
	for k, v := range attrs {
		if !reflect.DeepEqual(r.msg[k], v) {
			t.Errorf("attribute %s = %#v, want %#v (in %s)", k, r.msg[k], v, r.raw)
		}
	}
}
