package auth_test

import (
	"testing"
	"time"

	"github.com/fnapi/fnapi/auth"
)

// TestIdempotencyScope checks who gets the answers kept by Idempotency-Key: the same user
// through another session does; a user whose role changed, and a user deleted and created
// again under the same name, run the call afresh.
func TestIdempotencyScope(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	admin := e.login("admin", adminPassword)
	as := func(session, fn, key string, args map[string]any) response {
		t.Helper()
		mod := both(cookie(session), sameOrigin)
		if key != "" {
			mod = both(mod, header("Idempotency-Key", key))
		}
		r := e.post(fn, args, mod)
		if !r.ok() {
			t.Fatalf("%s: %d %s", fn, r.status, r.raw)
		}
		return r
	}
	replayed := func(r response) bool { return r.header.Get("Idempotent-Replayed") == "true" }
	as(admin, "create-user", "", map[string]any{"user": "bob", "password": "bob's password"})
	if r := as(e.login("bob", "bob's password"), "touch", "k1", nil); replayed(r) {
		t.Fatal("a first call was replayed")
	}
	if r := as(e.login("bob", "bob's password"), "touch", "k1", nil); !replayed(r) {
		t.Fatal("bob's repeat through another session was not replayed")
	}
	as(admin, "set-role", "", map[string]any{"user": "bob", "role": "administrator"})
	if r := as(e.login("bob", "bob's password"), "touch", "k1", nil); replayed(r) {
		t.Error("bob's repeat after his role changed was replayed")
	}
	as(admin, "delete-user", "", map[string]any{"user": "bob"})
	e.clock.advance(time.Second) // the clock is the test's: a user is told apart by its creation
	as(admin, "create-user", "", map[string]any{"user": "bob", "password": "new bob's password", "role": "administrator"})
	if r := as(e.login("bob", "new bob's password"), "touch", "k1", nil); replayed(r) {
		t.Error("a new user named bob was replayed the answer of the deleted one")
	}
}
