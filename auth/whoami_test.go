package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"

	"github.com/fnapi/fnapi/auth"
)

// TestWhoami: whoami answers the caller's user, admin flag, token kind and, for a session,
// when it ends; it needs a token, any token.
func TestWhoami(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore(), auth.WithSessionIdle(time.Hour), auth.WithSessionMax(2*time.Hour))
	s := e.login("admin", adminPassword)
	k := e.createKey(s, "ci")
	at := func(d time.Duration) string { return newClock().now().Add(d).Format(time.RFC3339) }

	r := e.get("whoami", withSession(s), nil)
	w, _ := r.msg["result"].(map[string]any)
	if !r.ok() || w["user"] != "admin" || w["admin"] != true || w["token"] != "session" || w["role"] != "administrator" || w["key_name"] != nil ||
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

// TestWhoamiSince: ForFunc adds whoami in a later API version, not before.
func TestWhoamiSince(t *testing.T) {
	t.Parallel()
	a, err := auth.New(auth.NewMemoryStore(), cheap)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	reg := registry.New()
	a.MustRegister(reg, auth.ForFunc("whoami", registry.Since("1.2")))
	for v, want := range map[string]bool{"1.0": false, "1.2": true} {
		if ok := reg.Lookup(version.MustParse(v), "whoami") != nil; ok != want {
			t.Errorf("whoami at %s: %v, want %v", v, ok, want)
		}
	}
}
