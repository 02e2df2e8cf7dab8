package auth_test

import (
	"strings"
	"testing"

	"github.com/fnapi/fnapi/auth"
)

// TestNoSecretsInLogs runs every function with logging at debug level, and looks for every
// password, session ID and key in the log.
func TestNoSecretsInLogs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	secrets := secretScenario(t, e)
	text := logText(t, e.logs)
	if text == "" {
		t.Fatal("nothing was logged")
	}
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("the log holds a secret %.12s...", s)
		}
	}
}

// secretScenario goes through every function and returns the secrets it used: passwords,
// session IDs, keys, and the UUID parts of the tokens.
func secretScenario(t *testing.T, e *env) []string {
	t.Helper()
	admin := e.login("admin", adminPassword)
	bobPassword := "bob's secret password"
	if r := e.get("create-user", map[string]any{"user": "bob", "password": bobPassword, "_session": admin}, nil); !r.ok() {
		t.Fatal(r.raw)
	}
	bob := e.login("bob", bobPassword)
	key := e.createKey(bob, "ci")
	e.post("login", map[string]any{"user": "bob", "password": "a wrong password"}, nil)
	e.post("login", map[string]any{"user": "typed-password-here", "password": "x"}, nil)
	e.get("whoami", nil, header("Svc-Authorization", key))
	e.get("whoami", withSession(bob), nil)
	e.get("list-api-keys", withKey(key), nil)
	newPassword := "bob's new password"
	if r := e.get("change-password", map[string]any{"old": bobPassword, "new": newPassword, "_session": bob}, nil); !r.ok() {
		t.Fatal(r.raw)
	}
	key2 := e.createKey(bob, "other")
	e.get("revoke-api-key", map[string]any{"name": "ci", "_key": key2}, nil)
	e.get("whoami", withKey(key), nil) // revoked
	e.get("logout", nil, cookie(admin))
	if err := e.a.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	out := []string{adminPassword, bobPassword, newPassword, "a wrong password", "typed-password-here"}
	for _, tok := range []string{admin, bob, key, key2} {
		out = append(out, tok, tok[strings.IndexByte(tok, ':')+1:])
	}
	return out
}
