package mcp

import (
	"testing"
	"time"
)

// TestSessionsBoundedAndIdle checks the bound on sessions, that an idle one ends (and makes
// room), and that a session answers only the tokens that started it.
func TestSessionsBoundedAndIdle(t *testing.T) {
	t.Parallel()
	ss := &sessions{max: 2, idle: time.Hour}
	alice, bob := [32]byte{1}, [32]byte{2}
	a := ss.start(alice, LatestProtocol)
	b := ss.start(bob, LatestProtocol)
	if a == nil || b == nil {
		t.Fatal("two sessions of two allowed")
	}
	if ss.start(alice, LatestProtocol) != nil {
		t.Error("a third session of two allowed")
	}
	if ss.get(a.id, bob) != nil || ss.get(a.id, alice) != a {
		t.Error("a session answers another caller, or not its own")
	}
	a.mu.Lock()
	a.last = time.Now().Add(-2 * time.Hour) // idle past SessionIdle
	a.mu.Unlock()
	c := ss.start(alice, LatestProtocol)
	if c == nil {
		t.Fatal("an idle session does not make room")
	}
	if ss.get(a.id, alice) != nil {
		t.Error("an idle session still answers")
	}
	// A session with a call running is not idle, however long ago it was last used.
	done := c.track(`"x"`, func() {})
	c.mu.Lock()
	c.last = time.Now().Add(-2 * time.Hour)
	c.mu.Unlock()
	if ss.get(c.id, alice) != c {
		t.Error("a session with a running call expired")
	}
	done()
	ss.end(b)
	if ss.get(b.id, bob) != nil {
		t.Error("an ended session answers")
	}
}
