package mcp

import (
	"testing"
	"time"
)

// TestSessionsBoundedAndIdle checks the bound on sessions, that an idle one ends (and makes
// room), and that a session answers only the tokens that started it.
func TestSessionsBoundedAndIdle(t *testing.T) {
	t.Parallel()
	ss := &sessions{max: 2, perCaller: 2, idle: time.Hour}
	alice, bob := [32]byte{1}, [32]byte{2}
	start := func(owner [32]byte) *session {
		s, _ := ss.start(owner, string(owner[:1]), LatestProtocol)
		return s
	}
	a := start(alice)
	b := start(bob)
	if a == nil || b == nil {
		t.Fatal("two sessions of two allowed")
	}
	if start(alice) != nil {
		t.Error("a third session of two allowed")
	}
	if ss.get(a.id, bob) != nil || ss.get(a.id, alice) != a {
		t.Error("a session answers another caller, or not its own")
	}
	a.mu.Lock()
	a.last = time.Now().Add(-2 * time.Hour) // idle past SessionIdle
	a.mu.Unlock()
	c := start(alice)
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

// TestSessionsPerCaller checks the bound per caller: past it, the caller's least recently used
// session that runs no call ends; when each runs one, the caller is refused; others keep
// theirs and may start more.
func TestSessionsPerCaller(t *testing.T) {
	t.Parallel()
	ss := &sessions{max: 10, perCaller: 3, idle: time.Hour}
	var owner [32]byte
	bob, _ := ss.start(owner, "user bob", LatestProtocol)
	var mine []*session
	for i := range 3 {
		s, err := ss.start(owner, "user mallory", LatestProtocol)
		if err != nil {
			t.Fatal(err)
		}
		s.mu.Lock()
		s.last = time.Now().Add(-time.Duration(10-i) * time.Minute) // mine[0] least recently used
		s.mu.Unlock()
		mine = append(mine, s)
	}
	done := mine[0].track(`"x"`, func() {}) // runs a call: not ended
	if _, err := ss.start(owner, "user mallory", LatestProtocol); err != nil {
		t.Fatal(err)
	}
	if ss.get(mine[0].id, owner) == nil || ss.get(mine[1].id, owner) != nil || ss.get(mine[2].id, owner) == nil {
		t.Error("the least recently used session without a call did not end alone")
	}
	for _, s := range ss.of["user mallory"] {
		if s != mine[0] {
			_ = s.track(`"y"`, func() {})
		}
	}
	if _, err := ss.start(owner, "user mallory", LatestProtocol); err != errCallerFull {
		t.Errorf("a caller whose sessions each run a call: %v", err)
	}
	done()
	if ss.get(bob.id, owner) != bob || len(ss.m) != 4 {
		t.Errorf("another caller's session ended, or sessions leak: %d", len(ss.m))
	}
	if _, err := ss.start(owner, "user bob", LatestProtocol); err != nil {
		t.Errorf("another caller refused: %v", err)
	}
}
