package auth_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/auth"
)

func TestLoginFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	tests := []struct{ name, user, password string }{
		{"wrong password", "admin", "wrong password"},
		{"unknown user", "nobody", adminPassword},
		{"empty password", "admin", ""},
	}
	var bodies []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.post("login", map[string]any{"user": tt.user, "password": tt.password}, nil)
			if r.status != 401 || r.code() != "INVALID-CREDENTIALS" || r.header.Get("Set-Cookie") != "" {
				t.Fatalf("got %d %s", r.status, r.raw)
			}
			bodies = append(bodies, r.raw)
		})
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Errorf("answers differ: %s and %s", bodies[0], b)
		}
	}
	if r := e.get("login", map[string]any{"user": "admin"}, nil); r.code() != "TOO-FEW-ARGUMENTS" {
		t.Errorf("login without a password: %s", r.raw)
	}
}

func TestLoginThrottling(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore(),
		auth.WithLoginLimits(auth.Limit{Burst: 3, Every: 30 * time.Second}, auth.Limit{Burst: 6, Every: 10 * time.Second}))
	login := func(user, password string) response {
		return e.post("login", map[string]any{"user": user, "password": password}, nil)
	}
	limited := func(t *testing.T, r response, wantRetry int) {
		t.Helper()
		if r.status != 429 || r.code() != "RATE-LIMITED" || r.msg["retry_after"] != float64(wantRetry) ||
			r.header.Get("Retry-After") != strconv.Itoa(wantRetry) {
			t.Fatalf("got %d %s (Retry-After %q), want RATE-LIMITED retry_after %d", r.status, r.raw, r.header.Get("Retry-After"), wantRetry)
		}
	}
	t.Run("per user", func(t *testing.T) {
		for i := 0; i < 3; i++ {
			if r := login("admin", "guess"); r.code() != "INVALID-CREDENTIALS" {
				t.Fatalf("attempt %d: %s", i, r.raw)
			}
		}
		limited(t, login("admin", "guess"), 30)
		limited(t, login("admin", adminPassword), 30) // even the right password waits
		e.clock.advance(20 * time.Second)
		limited(t, login("admin", adminPassword), 10)
		e.clock.advance(10 * time.Second)
		e.login("admin", adminPassword)
		// A success clears the user's failures.
		for i := 0; i < 2; i++ {
			if r := login("admin", "guess"); r.code() != "INVALID-CREDENTIALS" {
				t.Fatalf("after success, attempt %d: %s", i, r.raw)
			}
		}
	})
	t.Run("per address", func(t *testing.T) {
		e.clock.advance(time.Hour)
		// The address has 6 attempts; spread over users, no user budget runs out first.
		for i := 0; i < 6; i++ {
			if r := login("user"+strconv.Itoa(i), "guess"); r.code() != "INVALID-CREDENTIALS" {
				t.Fatalf("attempt %d: %s", i, r.raw)
			}
		}
		limited(t, login("someone-else", "guess"), 10)
		limited(t, login("admin", adminPassword), 10)
	})
	t.Run("change-password is throttled too", func(t *testing.T) {
		e.clock.advance(time.Hour)
		s := e.login("admin", adminPassword)
		for i := 0; i < 3; i++ {
			r := e.get("change-password", map[string]any{"old": "guess", "new": "new password 1", "_session": s}, nil)
			if r.code() != "INVALID-CREDENTIALS" {
				t.Fatalf("attempt %d: %s", i, r.raw)
			}
		}
		limited(t, e.get("change-password", map[string]any{"old": adminPassword, "new": "new password 1", "_session": s}, nil), 30)
	})
}

func TestUsers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	admin := e.login("admin", adminPassword)
	call := func(fn, tok string, args map[string]any) response {
		if args == nil {
			args = map[string]any{}
		}
		args["_session"] = tok
		return e.post(fn, args, nil)
	}
	r := call("create-user", admin, map[string]any{"user": "bob", "password": "bob's password"})
	if !r.ok() || r.msg["result"].(map[string]any)["user"] != "bob" || r.msg["result"].(map[string]any)["admin"] != false {
		t.Fatalf("create-user: %s", r.raw)
	}
	bob := e.login("bob", "bob's password")
	bobKey := e.createKey(bob, "ci")
	tests := []struct {
		name   string
		fn     string
		tok    string
		args   map[string]any
		status int
		code   string
	}{
		{"duplicate user", "create-user", admin, map[string]any{"user": "bob", "password": "another one"}, 409, "CONFLICT"},
		{"short password", "create-user", admin, map[string]any{"user": "carol", "password": "short"}, 400, "INVALID-ARGUMENT"},
		{"password over 1024 bytes", "create-user", admin, map[string]any{"user": "carol", "password": strings.Repeat("é", 600)}, 400, "INVALID-ARGUMENT"},
		{"bad name", "create-user", admin, map[string]any{"user": "a b", "password": "long enough"}, 400, "INVALID-ARGUMENT"},
		{"not an admin creates", "create-user", bob, map[string]any{"user": "carol", "password": "long enough"}, 403, "PERMISSION-DENIED"},
		{"not an admin deletes", "delete-user", bobKey, map[string]any{"user": "admin"}, 403, "PERMISSION-DENIED"},
		{"delete yourself", "delete-user", admin, map[string]any{"user": "admin"}, 400, "INVALID-ARGUMENT"},
		{"delete nobody", "delete-user", admin, map[string]any{"user": "nobody"}, 404, "NOT-FOUND"},
		{"list as a user", "list-users", bob, nil, 403, "PERMISSION-DENIED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args == nil {
				args = map[string]any{}
			}
			if tt.tok == bobKey {
				args["_key"] = tt.tok
				r = e.post(tt.fn, args, nil)
			} else {
				r = call(tt.fn, tt.tok, args)
			}
			if r.status != tt.status || r.code() != tt.code {
				t.Fatalf("got %d %s, want %d %s", r.status, r.raw, tt.status, tt.code)
			}
		})
	}
	r = call("list-users", admin, nil)
	if list := r.msg["result"].([]any); len(list) != 2 || list[0].(map[string]any)["user"] != "admin" || list[0].(map[string]any)["admin"] != true {
		t.Fatalf("list-users: %s", r.raw)
	}
	t.Run("delete-user ends sessions and keys at once", func(t *testing.T) {
		if r := e.get("whoami", withKey(bobKey), nil); !r.ok() {
			t.Fatal(r.raw)
		}
		if r := call("delete-user", admin, map[string]any{"user": "bob"}); !r.ok() {
			t.Fatalf("delete-user: %s", r.raw)
		}
		wantAuthNeeded(t, e.get("whoami", withKey(bobKey), nil), "whoami")
		wantAuthNeeded(t, e.get("whoami", withSession(bob), nil), "whoami")
		if r := e.post("login", map[string]any{"user": "bob", "password": "bob's password"}, nil); r.code() != "INVALID-CREDENTIALS" {
			t.Fatalf("deleted user logs in: %s", r.raw)
		}
	})
}

func TestChangePassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	s1 := e.login("admin", adminPassword)
	s2 := e.login("admin", adminPassword)
	k := e.createKey(s1, "ci")
	r := e.get("change-password", map[string]any{"old": adminPassword, "new": "a new password", "_session": s1}, nil)
	if !r.ok() {
		t.Fatalf("change-password: %s", r.raw)
	}
	if r := e.get("whoami", withSession(s1), nil); !r.ok() {
		t.Fatalf("the caller's session ended: %s", r.raw)
	}
	wantAuthNeeded(t, e.get("whoami", withSession(s2), nil), "whoami")
	if r := e.get("whoami", withKey(k), nil); !r.ok() {
		t.Fatalf("the key stopped: %s", r.raw)
	}
	if r := e.post("login", map[string]any{"user": "admin", "password": adminPassword}, nil); r.code() != "INVALID-CREDENTIALS" {
		t.Fatalf("old password: %s", r.raw)
	}
	e.login("admin", "a new password")
	if r := e.get("change-password", map[string]any{"old": "a new password", "new": "short", "_key": k}, nil); r.code() != "INVALID-ARGUMENT" {
		t.Fatalf("short new password: %s", r.raw)
	}
}

func TestRehashAtNewCost(t *testing.T) {
	t.Parallel()
	store := auth.NewMemoryStore()
	newEnv(t, store) // creates admin at the cheap cost
	before, _ := store.User(t.Context(), "admin")
	e := newEnv(t, store, auth.WithArgon2(auth.Argon2{Memory: 128, Iterations: 1}))
	e.login("admin", adminPassword)
	after, _ := store.User(t.Context(), "admin")
	if before.PasswordHash == after.PasswordHash || !strings.HasPrefix(after.PasswordHash, "$argon2id$v=19$m=128,t=1,p=1$") {
		t.Fatalf("not rehashed: %q -> %q", before.PasswordHash, after.PasswordHash)
	}
	e.login("admin", adminPassword)
}
