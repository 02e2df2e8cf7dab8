package auth_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/auth"
)

// TestKeyLimit checks that a user holds at most WithMaxKeys keys: past it, create-api-key
// answers CONFLICT with the limit and a reason, and revoking one makes room again.
func TestKeyLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore(), auth.WithMaxKeys(3))
	s := e.login("admin", adminPassword)
	for i := range 3 {
		e.createKey(s, fmt.Sprintf("k%d", i))
	}
	r := e.post("create-api-key", map[string]any{"name": "k3", "_session": s}, nil)
	if r.status != 409 || r.code() != "CONFLICT" || r.msg["limit"] != 3.0 || !strings.Contains(fmt.Sprint(r.msg["reason"]), "revoke one") {
		t.Fatalf("a fourth key of 3: %s", r.raw)
	}
	if r := e.post("revoke-api-key", map[string]any{"name": "k0", "_session": s}, nil); !r.ok() {
		t.Fatal(r.raw)
	}
	e.createKey(s, "k3")
	if _, err := auth.New(auth.NewMemoryStore(), auth.WithMaxKeys(0)); err == nil {
		t.Fatal("WithMaxKeys(0) accepted")
	}
}
