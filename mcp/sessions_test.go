package mcp_test

import (
	"net/http"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
)

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// TestSessionsPerCaller checks that a caller's sessions are bounded apart from others': a
// read-only key that initializes again and again ends its own oldest sessions, never takes
// the room of another user, and the table never fills.
func TestSessionsPerCaller(t *testing.T) {
	t.Parallel()
	s := newServerWith(t, mcp.Options{MaxSessions: 20, SessionsPerCaller: 4})
	_, do := s.session(s.readerKey)
	for i := range 30 {
		if a := s.send("POST", "/api/mcp", initialize, "Authorization", "Bearer "+s.readerKey); a.status != 200 {
			t.Fatalf("initialize %d of one caller: %d %s", i, a.status, a.body)
		}
	}
	if a := do(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); a.status != http.StatusNotFound {
		t.Errorf("the caller's least recently used session still answers: %d %s", a.status, a.body)
	}
	// Another user, and the same user with another key, count as they should.
	_, admin := s.session(s.adminKey)
	if a := admin(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); a.status != 200 {
		t.Errorf("another user's session: %d %s", a.status, a.body)
	}
	other := s.keyNamed("reader", "other")
	recent, _ := s.session(other)
	for range 4 {
		s.session(s.readerKey)
	}
	if a := s.send("POST", "/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Authorization", "Bearer "+other, "Mcp-Session-Id", recent); a.status != http.StatusNotFound {
		t.Errorf("a user's keys share its bound: %d %s", a.status, a.body)
	}
}

// TestSessionsEndWithCredential checks that a session ends with its token: once its key is
// revoked, or its user deleted, a request in the session answers 401 and frees its room.
func TestSessionsEndWithCredential(t *testing.T) {
	t.Parallel()
	s := newServerWith(t, mcp.Options{MaxSessions: 3})
	key := s.keyNamed("reader", "revoked")
	var ids []string
	for range 2 {
		id, _ := s.session(key)
		ids = append(ids, id)
	}
	readers, _ := s.session(s.readerKey)
	adminInit := func() int {
		return s.send("POST", "/api/mcp", initialize, "Authorization", "Bearer "+s.adminKey).status
	}
	if st := adminInit(); st != http.StatusServiceUnavailable {
		t.Fatalf("a full table: %d", st)
	}
	var sess string
	s.plain("login", map[string]any{"user": "reader", "password": "password of reader"}, &sess)
	var done any
	s.plain("revoke-api-key", map[string]any{"name": "revoked", "_session": sess}, &done)
	ping := func(key, id string) int {
		return s.send("POST", "/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Authorization", "Bearer "+key, "Mcp-Session-Id", id).status
	}
	for _, id := range ids {
		if st := ping(key, id); st != http.StatusUnauthorized {
			t.Errorf("a session of a revoked key: %d", st)
		}
	}
	for range 2 {
		if st := adminInit(); st != 200 {
			t.Fatalf("the sessions of a revoked key still hold the table: %d", st)
		}
	}
	if st := adminInit(); st != http.StatusServiceUnavailable {
		t.Fatalf("a full table: %d", st)
	}
	s.plain("login", map[string]any{"user": "admin", "password": "password of admin"}, &sess)
	s.plain("delete-user", map[string]any{"user": "reader", "_session": sess}, &done)
	if st := ping(s.readerKey, readers); st != http.StatusUnauthorized {
		t.Errorf("a session of a deleted user: %d", st)
	}
	if st := adminInit(); st != 200 {
		t.Errorf("the session of a deleted user still holds the table: %d", st)
	}
}

// TestAnonymousSessionsPerAddress checks that where every function is public, sessions are
// bounded per client address.
func TestAnonymousSessionsPerAddress(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	h, err := fnapi.New(reg, fnapi.WithMCP(mcp.Options{SessionsPerCaller: 2}))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	_, do := s.session("")
	_, second := s.session("")
	if a := do(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); a.status != 200 {
		t.Fatalf("a session within the bound: %d %s", a.status, a.body)
	}
	s.session("") // ends the least recently used: the second
	if a := second(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); a.status != http.StatusNotFound {
		t.Errorf("an address's third session of two did not end its least recently used: %d %s", a.status, a.body)
	}
	if a := do(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); a.status != 200 {
		t.Errorf("the recently used session ended: %d %s", a.status, a.body)
	}
}
