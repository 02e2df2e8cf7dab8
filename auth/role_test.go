package auth_test

import (
	"testing"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
)

// TestRoles checks the roles end to end: what a read-only user, a user and an administrator
// may call, that a key has exactly its user's rights, and that set-role applies at once.
func TestRoles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	admin := e.login("admin", adminPassword)
	as := func(tok, fn string, args map[string]any) response {
		t.Helper()
		if args == nil {
			args = map[string]any{}
		}
		args["_session"] = tok
		return e.post(fn, args, nil)
	}
	want := func(r response, status int, code string) {
		t.Helper()
		if r.status != status || r.code() != code {
			t.Fatalf("got %d %s, want %d %s", r.status, r.raw, status, code)
		}
	}
	r := as(admin, "create-user", map[string]any{"user": "rita", "password": "rita's password", "role": "read-only"})
	if res, _ := r.msg["result"].(map[string]any); !r.ok() || res["role"] != "read-only" || res["admin"] != false {
		t.Fatalf("create-user read-only: %s", r.raw)
	}
	want(as(admin, "create-user", map[string]any{"user": "bob", "password": "bob's password"}), 200, "")
	want(as(admin, "create-user", map[string]any{"user": "x", "password": "long enough", "role": "root"}), 400, "INVALID-ARGUMENT")
	want(as(admin, "create-user", map[string]any{"user": "x", "password": "long enough", "role": "user", "admin": true}), 400, "INVALID-ARGUMENT")
	if r := as(admin, "create-user", map[string]any{"user": "ada", "password": "ada's password", "admin": true}); r.msg["result"].(map[string]any)["role"] != "administrator" {
		t.Fatalf("admin true: %s", r.raw)
	}

	rita := e.login("rita", "rita's password")
	ritaKey := e.createKey(rita, "dash") // a read-only user may make a key...
	bob := e.login("bob", "bob's password")
	bobKey := e.createKey(bob, "ci")

	// ...which has exactly her rights: touch names no role, so it needs a user; whoami is for
	// every role.
	for _, args := range []map[string]any{withSession(rita), withKey(ritaKey)} {
		want(e.get("whoami", args, nil), 200, "")
		r := e.get("touch", args, nil)
		want(r, 403, "PERMISSION-DENIED")
		if r.msg["path"] != "touch" || r.msg["role"] != "user" {
			t.Fatalf("attributes: %s", r.raw)
		}
	}
	want(e.get("list-api-keys", withKey(ritaKey), nil), 200, "")
	want(as(rita, "change-password", map[string]any{"old": "rita's password", "new": "rita's new password"}), 200, "")
	want(e.get("touch", withKey(bobKey), nil), 200, "")
	want(e.get("list-users", withKey(bobKey), nil), 403, "PERMISSION-DENIED")

	// Other users' keys: administrators only.
	want(as(bob, "list-api-keys", map[string]any{"user": "rita"}), 403, "PERMISSION-DENIED")
	want(as(bob, "revoke-api-key", map[string]any{"name": "dash", "user": "rita"}), 403, "PERMISSION-DENIED")
	if r := as(admin, "list-api-keys", map[string]any{"user": "rita"}); !r.ok() || len(r.msg["result"].([]any)) != 1 {
		t.Fatalf("an administrator lists rita's keys: %s", r.raw)
	}
	want(as(admin, "revoke-api-key", map[string]any{"name": "dash", "user": "rita"}), 200, "")
	wantAuthNeeded(t, e.get("list-api-keys", withKey(ritaKey), nil), "list-api-keys")

	// set-role applies to sessions and keys already given.
	want(as(bob, "set-role", map[string]any{"user": "rita", "role": "user"}), 403, "PERMISSION-DENIED")
	want(as(admin, "set-role", map[string]any{"user": "admin", "role": "user"}), 400, "INVALID-ARGUMENT")
	want(as(admin, "set-role", map[string]any{"user": "nobody", "role": "user"}), 404, "NOT-FOUND")
	want(as(admin, "set-role", map[string]any{"user": "bob", "role": "owner"}), 400, "INVALID-ARGUMENT")
	if r := as(admin, "set-role", map[string]any{"user": "bob", "role": "read-only"}); !r.ok() || r.msg["result"].(map[string]any)["role"] != "read-only" {
		t.Fatalf("set-role: %s", r.raw)
	}
	want(e.get("touch", withKey(bobKey), nil), 403, "PERMISSION-DENIED")
	if r := e.get("whoami", withKey(bobKey), nil); !r.ok() || r.msg["result"].(map[string]any)["role"] != "read-only" {
		t.Fatalf("whoami after set-role read-only: %s", r.raw)
	}
	want(as(admin, "set-role", map[string]any{"user": "bob", "role": "administrator"}), 200, "")
	if r := e.get("whoami", withKey(bobKey), nil); !r.ok() || r.msg["result"].(map[string]any)["role"] != "administrator" {
		t.Fatalf("whoami after set-role administrator: %s", r.raw)
	}
	want(e.get("list-users", withSession(bob), nil), 200, "")
	r = as(admin, "list-users", nil)
	roles := map[string]any{}
	for _, u := range r.msg["result"].([]any) {
		roles[u.(map[string]any)["user"].(string)] = u.(map[string]any)["role"]
	}
	if roles["admin"] != "administrator" || roles["bob"] != "administrator" || roles["rita"] != "read-only" || roles["ada"] != "administrator" {
		t.Fatalf("list-users roles %v", roles)
	}
}

func TestRoleOptions(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	if err := reg.Register("f", func() {}, registry.Requires(authapi.Role("owner"))); err == nil {
		t.Error("Requires of an unknown role registered")
	}
	a, err := auth.New(auth.NewMemoryStore())
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Register(registry.New(), auth.ForFunc("set-rôle", registry.Since("1.2"))); err == nil {
		t.Error("ForFunc of an unknown function accepted")
	}
	reg = registry.New()
	if err := a.Register(reg, auth.ForFunc("set-role", registry.Since("1.2"))); err != nil {
		t.Fatal(err)
	}
	if f := reg.Lookup(version.MustParse("1.2"), "set-role"); f == nil || f.Role != "administrator" {
		t.Errorf("set-role at 1.2: %+v", f)
	}
	if f := reg.Lookup(version.MustParse("1.1"), "set-role"); f != nil {
		t.Errorf("set-role at 1.1 although ForFunc moved it to 1.2: %+v", f)
	}
	if err := a.Register(registry.New(), auth.ForFunc("login", registry.Requires(decl.Session))); err == nil {
		t.Error("ForFunc changing login's declared access accepted")
	}
}
