package app_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
)

// TestEveryFunction calls each function the service serves at its latest version, over HTTPS
// and over the WebSocket, with a session, and checks that none is left out.
func TestEveryFunction(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := context.Background()
	var session string
	if err := s.http(t).Call(ctx, "login", map[string]string{"user": "admin", "password": "correct horse battery staple"}, &session); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Functions []struct{ Name string } }
	if err := s.http(t).Call(ctx, "doc", nil, &doc); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]caller{
		"https":     s.http(t, client.WithSession(session)),
		"websocket": s.ws(t, "/api/ws", client.WithSession(session)),
	} {
		t.Run(name, func(t *testing.T) {
			called := map[string]bool{}
			call := func(fn string, args any, out any) {
				t.Helper()
				called[fn] = true
				if err := c.Call(ctx, fn, args, out); err != nil {
					t.Fatalf("%s: %v", fn, err)
				}
			}
			user := "bob-" + name
			var echoed map[string]any
			call("echo", map[string]any{"x": 1}, &echoed)
			var v string
			call("get-api-version", nil, &v)
			call("doc", map[string]any{"format": "openapi"}, nil)
			call("list-fields", nil, nil)
			var me struct{ User, Token string }
			if call("whoami", nil, &me); me.User != "admin" || me.Token != "session" {
				t.Errorf("whoami = %+v, want admin with a session", me)
			}
			var collector struct {
				Enabled   bool
				Exporters []any
			}
			call("collector-status", nil, &collector)
			if collector.Enabled || collector.Exporters == nil || len(collector.Exporters) > 0 {
				t.Errorf("collector-status without a collector answered %+v", collector)
			}
			call("create-user", map[string]any{"user": user, "password": "first password"}, nil)
			var users []struct{ User string }
			call("list-users", nil, &users)
			call("set-role", map[string]any{"user": user, "role": "read-only"}, nil)
			call("set-role", map[string]any{"user": user, "role": "user"}, nil)
			var key string
			call("create-api-key", map[string]any{"name": "k-" + name}, &key)
			var keys []struct{ Name string }
			call("list-api-keys", nil, &keys)
			call("revoke-api-key", map[string]any{"name": "k-" + name}, nil)

			// change-password and logout as bob, on a session of his own.
			var bobSession string
			call("login", map[string]any{"user": user, "password": "first password"}, &bobSession)
			bob := s.http(t, client.WithSession(bobSession))
			if err := bob.Call(ctx, "change-password", map[string]any{"old": "first password", "new": "second password"}, nil); err != nil {
				t.Fatalf("change-password: %v", err)
			}
			called["change-password"] = true
			if err := bob.Call(ctx, "logout", nil, nil); err != nil {
				t.Fatalf("logout: %v", err)
			}
			called["logout"] = true
			if err := bob.Call(ctx, "list-users", nil, nil); !isCode(err, apierr.AuthenticationNeeded) {
				t.Fatalf("a call after logout: %v", err)
			}
			call("delete-user", map[string]any{"user": user}, nil)

			var d struct{ ID string }
			call("create-dashboard", map[string]any{"title": "t", "description": "d"}, &d)
			call("update-dashboard", map[string]any{"id": d.ID, "title": "t2"}, nil)
			call("list-dashboards", nil, nil)
			var w struct{ ID string }
			call("create-widget", map[string]any{"dashboard": d.ID, "title": "w", "kind": "pie", "queries": []string{"traffic BY protocol"}}, &w)
			call("update-widget", map[string]any{"id": w.ID, "kind": "bar"}, nil)
			call("get-dashboard", map[string]any{"id": d.ID}, nil)
			call("delete-widget", map[string]any{"id": w.ID}, nil)
			call("delete-dashboard", map[string]any{"id": d.ID}, nil)
			var cfg map[string]any
			call("get-config", nil, &cfg)
			call("set-config", map[string]any{"values": map[string]any{"retention": "30d"}}, nil)
			call("ingest", map[string]any{"records": []any{record(time.Now().Unix()-60, "10.1.1.1", "10.1.1.2", 22, 1, 2)}}, nil)
			call("query", map[string]any{"expr": "traffic"}, nil)
			var events []struct{ Action string }
			call("list-audit", map[string]any{"limit": 5}, &events)
			if len(events) == 0 || events[0].Action != "set-config" {
				t.Errorf("list-audit: %+v, want set-config newest", events)
			}
			zone, network := "Z-"+name, map[string]string{"https": "198.51.100.0/24", "websocket": "203.0.113.0/24"}[name]
			call("set-zone", map[string]any{"name": zone, "networks": []string{network}}, nil)
			call("list-zones", nil, nil)
			call("set-application", map[string]any{"name": "a-" + name, "rules": []map[string]any{{"server_zone": zone}}}, nil)
			call("list-applications", nil, nil)
			call("delete-application", map[string]any{"name": "a-" + name}, nil)
			call("delete-zone", map[string]any{"name": zone}, nil)
			callAlerts(t, call)
			var cancelled bool
			call("cancel", map[string]any{"id": "no-such-call"}, &cancelled)
			if cancelled {
				t.Error("cancel of no call answered true")
			}
			call("login", map[string]any{"user": "admin", "password": "correct horse battery staple"}, nil)

			var missing []string
			for _, f := range doc.Functions {
				if !called[f.Name] {
					missing = append(missing, f.Name)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("functions this test does not call: %s", strings.Join(missing, ", "))
			}
		})
	}
}

func isCode(err error, d *apierr.Declaration) bool {
	var e *apierr.Error
	return errors.As(err, &e) && errors.Is(e, d)
}
