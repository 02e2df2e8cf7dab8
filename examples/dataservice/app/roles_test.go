package app_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
)

// TestRolesAndAudit checks the authorization model of the service (read-only, user,
// administrator; a key with exactly its user's rights) and the audit trail of changes.
func TestRolesAndAudit(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	admin := s.http(t, client.WithAPIKey(s.key))
	must := func(c *client.Client, fn string, args, out any) {
		t.Helper()
		if err := c.Call(ctx, fn, args, out); err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
	}
	must(admin, "create-user", map[string]any{"user": "rita", "password": "rita's password", "role": "read-only"}, nil)
	must(admin, "create-user", map[string]any{"user": "bob", "password": "bob's password"}, nil)
	login := func(user, password string) (session *client.Client, key *client.Client) {
		var tok, k string
		must(s.http(t), "login", map[string]any{"user": user, "password": password}, &tok)
		session = s.http(t, client.WithSession(tok))
		must(session, "create-api-key", map[string]any{"name": "mine"}, &k)
		return session, s.http(t, client.WithAPIKey(k))
	}
	rita, ritaKey := login("rita", "rita's password")
	bob, bobKey := login("bob", "bob's password")
	var d struct{ ID string }
	must(bob, "create-dashboard", map[string]any{"title": "Bob's"}, &d)

	denied := func(who string, c *client.Client, fn string, args any) {
		t.Helper()
		if err := c.Call(ctx, fn, args, nil); code(err) != apierr.PermissionDenied {
			t.Errorf("%s calls %s: %v, want PERMISSION-DENIED", who, fn, err)
		}
	}
	for _, c := range []*client.Client{rita, ritaKey} {
		must(c, "query", map[string]any{"expr": "traffic"}, nil)
		must(c, "list-fields", nil, nil)
		must(c, "collector-status", nil, nil)
		must(c, "list-dashboards", nil, nil)
		must(c, "get-dashboard", map[string]any{"id": d.ID}, nil)
		must(c, "list-api-keys", nil, nil)
		denied("read-only", c, "create-dashboard", map[string]any{"title": "x"})
		denied("read-only", c, "update-dashboard", map[string]any{"id": d.ID, "title": "x"})
		denied("read-only", c, "delete-dashboard", map[string]any{"id": d.ID})
		denied("read-only", c, "create-widget", map[string]any{"dashboard": d.ID, "title": "w", "kind": "pie", "queries": []string{"traffic"}})
		denied("read-only", c, "ingest", map[string]any{"records": []any{}})
	}
	for who, c := range map[string]*client.Client{"read-only": ritaKey, "user": bob, "user's key": bobKey} {
		denied(who, c, "get-config", nil)
		denied(who, c, "set-config", map[string]any{"values": map[string]any{"retention": "1h"}})
		denied(who, c, "list-users", nil)
		denied(who, c, "create-user", map[string]any{"user": "eve", "password": "eve's password"})
		denied(who, c, "set-role", map[string]any{"user": "rita", "role": "administrator"})
		denied(who, c, "list-audit", nil)
		denied(who, c, "list-api-keys", map[string]any{"user": "admin"})
		denied(who, c, "revoke-api-key", map[string]any{"name": "tests", "user": "admin"})
	}

	// Every change of configuration, users and keys is in the trail; nothing refused is.
	must(admin, "set-config", map[string]any{"values": map[string]any{"retention": "60d"}}, nil)
	must(admin, "set-role", map[string]any{"user": "rita", "role": "user"}, nil)
	must(admin, "revoke-api-key", map[string]any{"name": "mine", "user": "bob"}, nil)
	must(bob, "change-password", map[string]any{"old": "bob's password", "new": "bob's new password"}, nil)
	must(admin, "delete-user", map[string]any{"user": "rita"}, nil)
	var events []struct {
		User, Key, Address, Action string
		Details                    map[string]json.RawMessage
		Time                       string
	}
	must(admin, "list-audit", map[string]any{"limit": 1000}, &events)
	var got []string
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		if e.Address != "127.0.0.1" || e.Time == "" {
			t.Errorf("event %+v: want address 127.0.0.1 and a time", e)
		}
		line := e.Action + " by " + e.User
		if e.Key != "" {
			line += " key " + e.Key
		}
		for _, k := range []string{"user", "role", "name", "values"} {
			if v, ok := e.Details[k]; ok {
				line += " " + k + "=" + string(v)
			}
		}
		got = append(got, line)
	}
	want := []string{
		`create-api-key by admin name="tests"`, // start's key, made with a session
		`create-user by admin key tests user="rita" role="read-only"`,
		`create-user by admin key tests user="bob"`,
		`create-api-key by rita name="mine"`,
		`create-api-key by bob name="mine"`,
		`set-config by admin key tests values={"retention":"60d"}`,
		`set-role by admin key tests user="rita" role="user"`,
		`revoke-api-key by admin key tests user="bob" name="mine"`,
		`change-password by bob`,
		`delete-user by admin key tests user="rita"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit trail, oldest first:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	raw, _ := json.Marshal(events)
	if strings.Contains(string(raw), "password'") || strings.Contains(string(raw), "secret:") {
		t.Fatalf("the audit trail holds a password or a key: %s", raw)
	}
	must(admin, "list-audit", map[string]any{"limit": 2}, &events)
	if len(events) != 2 || events[0].Action != "delete-user" {
		t.Fatalf("limit 2: %+v", events)
	}
	must(admin, "list-audit", map[string]any{"since": time.Now().Add(time.Hour).Format(time.RFC3339)}, &events)
	if len(events) != 0 {
		t.Fatalf("events since an hour ahead: %+v", events)
	}
	if err := admin.Call(ctx, "list-audit", map[string]any{"since": "yesterday"}, nil); code(err) != apierr.InvalidArgument {
		t.Fatalf("since yesterday: %v", err)
	}
	if err := admin.Call(ctx, "list-audit", map[string]any{"limit": 1001}, nil); code(err) != apierr.InvalidArgument {
		t.Fatalf("limit 1001: %v", err)
	}
	v11 := s.http(t, client.WithAPIKey(s.key), client.WithVersion("1.1"))
	for _, fn := range []string{"list-audit", "set-role"} {
		if err := v11.Call(ctx, fn, map[string]any{}, nil); code(err) != apierr.UnknownFunction {
			t.Errorf("%s at 1.1: %v", fn, err)
		}
	}
}
