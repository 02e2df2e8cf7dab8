package mcp_test

import (
	"net/http"
	"testing"

	"github.com/fnapi/fnapi/mcp"
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

// TestSessionsEndWithCredential checks that a session ends with the key that started it:
// once the key is revoked, a request in the session answers 401 and frees its room.
func TestSessionsEndWithCredential(t *testing.T) {
	t.Parallel()
	s := newServerWith(t, mcp.Options{MaxSessions: 3})
	key := s.keyNamed("reader", "revoked")
	var ids []string
	for range 3 {
		id, _ := s.session(key)
		ids = append(ids, id)
	}
	if a := s.send("POST", "/api/mcp", initialize, "Authorization", "Bearer "+s.adminKey); a.status != http.StatusServiceUnavailable {
		t.Fatalf("a full table: %d %s", a.status, a.body)
	}
	var sess string
	s.plain("login", map[string]any{"user": "reader", "password": "password of reader"}, &sess)
	var revoked any
	s.plain("revoke-api-key", map[string]any{"name": "revoked", "_session": sess}, &revoked)
	for _, id := range ids {
		a := s.send("POST", "/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Authorization", "Bearer "+key, "Mcp-Session-Id", id)
		if a.status != http.StatusUnauthorized {
			t.Errorf("a session of a revoked key: %d %s", a.status, a.body)
		}
	}
	if a := s.send("POST", "/api/mcp", initialize, "Authorization", "Bearer "+s.adminKey); a.status != 200 {
		t.Errorf("the sessions of a revoked key still hold the table: %d %s", a.status, a.body)
	}
}
