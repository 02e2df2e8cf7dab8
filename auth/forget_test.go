package auth_test

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
)

// Two Authenticators over one store stand for two nodes: what one changes, the other's cache
// keeps for its TTL (an hour here) until told to forget.
func TestForget(t *testing.T) {
	t.Parallel()
	store := auth.NewMemoryStore()
	a := newEnv(t, store, auth.WithCacheTTL(time.Hour))
	b := newEnv(t, store, auth.WithCacheTTL(time.Hour))
	hash := func(tok string) auth.Hash { return sha256.Sum256([]byte(tok)) }

	t.Run("ended session", func(t *testing.T) {
		s := a.login("admin", adminPassword)
		if r := b.get("whoami", withSession(s), nil); !r.ok() {
			t.Fatalf("a session made on one node, used on the other: %d %s", r.status, r.raw)
		}
		if r := a.post("logout", withSession(s), nil); !r.ok() {
			t.Fatalf("logout: %s", r.raw)
		}
		if r := b.get("whoami", withSession(s), nil); !r.ok() {
			t.Fatalf("the other node's cache should still hold the session: %s", r.raw)
		}
		b.a.Forget(hash(s))
		wantAuthNeeded(t, b.get("whoami", withSession(s), nil), "whoami")
	})

	t.Run("revoked key", func(t *testing.T) {
		s := a.login("admin", adminPassword)
		k := a.createKey(s, "revoked")
		if r := b.get("whoami", withKey(k), nil); !r.ok() {
			t.Fatalf("%d %s", r.status, r.raw)
		}
		if r := a.post("revoke-api-key", map[string]any{"_session": s, "name": "revoked"}, nil); !r.ok() {
			t.Fatalf("revoke: %s", r.raw)
		}
		b.a.Forget(hash(k))
		wantAuthNeeded(t, b.get("whoami", withKey(k), nil), "whoami")
	})

	t.Run("deleted user", func(t *testing.T) {
		s := a.login("admin", adminPassword)
		if r := a.post("create-user", map[string]any{"_session": s, "user": "bob", "password": "a long password"}, nil); !r.ok() {
			t.Fatalf("create-user: %s", r.raw)
		}
		bob := a.login("bob", "a long password")
		if r := b.get("whoami", withSession(bob), nil); !r.ok() {
			t.Fatalf("%d %s", r.status, r.raw)
		}
		if r := a.post("delete-user", map[string]any{"_session": s, "user": "bob"}, nil); !r.ok() {
			t.Fatalf("delete-user: %s", r.raw)
		}
		b.a.ForgetUser("bob")
		wantAuthNeeded(t, b.get("whoami", withSession(bob), nil), "whoami")
	})

	t.Run("everything", func(t *testing.T) {
		s := a.login("admin", adminPassword)
		if r := b.get("whoami", withSession(s), nil); !r.ok() {
			t.Fatalf("%d %s", r.status, r.raw)
		}
		if err := store.DeleteSession(t.Context(), hash(s)); err != nil {
			t.Fatal(err)
		}
		b.a.ForgetAll()
		wantAuthNeeded(t, b.get("whoami", withSession(s), nil), "whoami")
	})
}

// TestRoleReadAfterTTL: a role changed by another process whose notification was lost takes
// effect when the cached token is read again, after the cache TTL.
func TestRoleReadAfterTTL(t *testing.T) {
	t.Parallel()
	store := auth.NewMemoryStore()
	e := newEnv(t, store, auth.WithCacheTTL(time.Minute))
	s := e.login("admin", adminPassword)
	if r := e.post("create-user", map[string]any{"_session": s, "user": "bob", "password": "a long password", "role": "administrator"}, nil); !r.ok() {
		t.Fatalf("create-user: %s", r.raw)
	}
	bob := e.login("bob", "a long password")
	if r := e.get("list-users", withSession(bob), nil); !r.ok() {
		t.Fatalf("list-users as an administrator: %s", r.raw)
	}
	if err := store.SetRole(t.Context(), "bob", authapi.RoleUser); err != nil { // as another node would
		t.Fatal(err)
	}
	if r := e.get("list-users", withSession(bob), nil); !r.ok() {
		t.Fatalf("within the TTL the cache still holds the role: %s", r.raw)
	}
	e.clock.advance(2 * time.Minute)
	if r := e.get("list-users", withSession(bob), nil); r.code() != "PERMISSION-DENIED" {
		t.Fatalf("past the TTL: %d %s, want PERMISSION-DENIED", r.status, r.raw)
	}
}
