package auth_test

import (
	"strings"
	"testing"

	"github.com/fnapi/fnapi/auth"
)

// TestKeyNames checks that create-api-key refuses names that hide what they are.
func TestKeyNames(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	s := e.login("admin", adminPassword)
	for name, reason := range map[string]string{
		"ci\x00":           "control characters",
		"ci\nprod":         "control characters",
		"\u202eic":         "bidirectional formatting characters",
		"\u200b\u200b":     "must hold a visible character",
		"   ":              "must hold a visible character",
		"ci-\u2066x\u2069": "bidirectional",
	} {
		r := e.post("create-api-key", map[string]any{"name": name, "_session": s}, nil)
		if r.status != 400 || r.code() != "INVALID-ARGUMENT" || r.msg["name"] != "name" || !strings.Contains(r.msg["reason"].(string), reason) {
			t.Errorf("create-api-key %q: %s, want INVALID-ARGUMENT %q", name, r.raw, reason)
		}
	}
	if k := e.createKey(s, "CI — déploiement 🚀"); !strings.HasPrefix(k, "secret:") {
		t.Fatalf("a good name: %q", k)
	}
}
