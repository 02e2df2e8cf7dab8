package app_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/api"
)

// TestRolesAndAudit checks the authorization model of the service (read-only, user,
// administrator; a key with exactly its user's rights) and the audit trail of changes.
func TestRolesAndAudit(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := context.Background()
	admin := s.http(t, client.WithAPIKey(s.key))
	must := func(c *client.Client, fn string, args, out any) {
		t.Helper()
		if err := c.Call(ctx, fn, args, out); err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
	}
	ok := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	ok(client.Call(ctx, admin, authapi.CreateUser, authapi.CreateUserArgs{User: "rita", Password: "rita's password", Role: authapi.RoleReadOnly}))
	ok(client.Call(ctx, admin, authapi.CreateUser, authapi.CreateUserArgs{User: "bob", Password: "bob's password"}))
	login := func(user, password string) (session *client.Client, key *client.Client) {
		tok, err := client.Call(ctx, s.http(t), authapi.Login, authapi.LoginArgs{User: user, Password: password})
		ok(nil, err)
		session = s.http(t, client.WithSession(tok))
		k, err := client.Call(ctx, session, authapi.CreateAPIKey, authapi.KeyArgs{Name: "mine"})
		ok(nil, err)
		return session, s.http(t, client.WithAPIKey(k))
	}
	rita, ritaKey := login("rita", "rita's password")
	bob, bobKey := login("bob", "bob's password")
	d, err := client.Call(ctx, bob, api.CreateDashboard, api.CreateDashboardArgs{Title: "Bob's"})
	ok(nil, err)

	denied := func(who string, c *client.Client, fn string, args any) {
		t.Helper()
		if err := c.Call(ctx, fn, args, nil); code(err) != apierr.PermissionDenied.Code() {
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
	ok(client.Call(ctx, admin, api.SetRole, authapi.RoleArgs{User: "rita", Role: authapi.RoleUser}))
	ok(client.Call(ctx, admin, authapi.RevokeAPIKey, authapi.RevokeArgs{Name: "mine", User: "bob"}))
	ok(client.Call(ctx, bob, authapi.ChangePassword, authapi.PasswordArgs{Old: "bob's password", New: "bob's new password"}))
	ok(client.Call(ctx, admin, authapi.DeleteUser, authapi.UserArgs{User: "rita"}))
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
		for _, k := range []string{"user", "role", "name", "values", "title"} {
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
		`create-dashboard by bob title="Bob's"`,
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
	newest, err := client.Call(ctx, admin, api.ListAudit, api.ListAuditArgs{Limit: 2})
	if err != nil || len(newest) != 2 || newest[0].Action != "delete-user" {
		t.Fatalf("limit 2: %+v, %v", newest, err)
	}
	if ahead, err := client.Call(ctx, admin, api.ListAudit, api.ListAuditArgs{Since: time.Now().Add(time.Hour)}); err != nil || len(ahead) != 0 {
		t.Fatalf("events since an hour ahead: %+v, %v", ahead, err)
	}
	// Bad input through the dynamic client: a declared call cannot send it.
	if err := admin.Call(ctx, "list-audit", map[string]any{"since": "yesterday"}, nil); code(err) != apierr.InvalidArgument.Code() {
		t.Fatalf("since yesterday: %v", err)
	}
	if err := admin.Call(ctx, "list-audit", map[string]any{"limit": 1001}, nil); code(err) != apierr.InvalidArgument.Code() {
		t.Fatalf("limit 1001: %v", err)
	}
	v11 := s.http(t, client.WithAPIKey(s.key), client.WithVersion("1.1"))
	for _, fn := range []string{"list-audit", "set-role"} {
		if err := v11.Call(ctx, fn, map[string]any{}, nil); code(err) != apierr.UnknownFunction.Code() {
			t.Errorf("%s at 1.1: %v", fn, err)
		}
	}
}
