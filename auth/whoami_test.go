package auth_test

import (
	"testing"
	"time"

	"github.com/fnapi/fnapi/auth"
)

// TestWhoami: whoami answers the caller's user, admin flag, token kind and, for a session,
// when it ends; it needs a token, any token.
func TestWhoami(t *testing.T) {
	e := newEnv(t, auth.NewMemoryStore(), auth.WithSessionIdle(time.Hour), auth.WithSessionMax(2*time.Hour))
	s := e.login("admin", adminPassword)
	k := e.createKey(s, "ci")
	at := func(d time.Duration) string { return newClock().now().Add(d).Format(time.RFC3339) }

	r := e.get("whoami", withSession(s), nil)
	w, _ := r.msg["result"].(map[string]any)
	if !r.ok() || w["user"] != "admin" || w["admin"] != true || w["token"] != "session" || w["key_name"] != nil ||
		w["expires"] != at(time.Hour) || w["ends"] != at(2*time.Hour) {
		t.Fatalf("whoami with a session: %s", r.raw)
	}
	// Used again later, the session's idle end moves on, up to its maximum lifetime.
	e.clock.advance(50 * time.Minute)
	e.get("whoami", withSession(s), nil)
	e.clock.advance(50 * time.Minute)
	r = e.get("whoami", withSession(s), nil)
	if w, _ = r.msg["result"].(map[string]any); !r.ok() || w["expires"] != at(2*time.Hour) || w["ends"] != at(2*time.Hour) {
		t.Fatalf("whoami near the session's end: %s", r.raw)
	}

	r = e.get("whoami", withKey(k), nil)
	if w, _ = r.msg["result"].(map[string]any); !r.ok() || w["user"] != "admin" || w["token"] != "key" || w["key_name"] != "ci" ||
		w["expires"] != nil || w["ends"] != nil {
		t.Fatalf("whoami with a key: %s", r.raw)
	}

	wantAuthNeeded(t, e.get("whoami", nil, nil), "whoami")
}

// TestWhoamiSince: WithWhoamiSince adds whoami in the given API version, not before.
func TestWhoamiSince(t *testing.T) {
	e := newEnv(t, auth.NewMemoryStore(), auth.WithWhoamiSince("1.2"))
	s := e.login("admin", adminPassword)
	if r := e.get("1.2/whoami", withSession(s), nil); !r.ok() {
		t.Fatalf("whoami at 1.2: %s", r.raw)
	}
	if r := e.get("1.0/whoami", withSession(s), nil); r.status != 404 || r.code() != "UNKNOWN-FUNCTION" {
		t.Fatalf("whoami at 1.0: %d %s", r.status, r.raw)
	}
}
