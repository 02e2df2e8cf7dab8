package mcp

import (
	"context"
	"sync"
	"time"

	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/google/uuid"
)

// session is one MCP session (Mcp-Session-Id): the protocol version agreed, the log level the
// client set, and the requests running, for notifications/cancelled.
type session struct {
	id       string
	owner    [32]byte // the digest of the tokens of its initialize (transport.Exchange.TokenDigest)
	protocol string

	mu    sync.Mutex
	last  time.Time
	level int // the least severity of the log messages sent
	calls map[string]context.CancelFunc
	// the requests of the server waiting for the client's answer, by id (see Request)
	asked   int
	pending map[string]chan jsonrpc.Response
}

// sessions holds the sessions of one endpoint, bounded in number, ending when idle.
type sessions struct {
	max  int
	idle time.Duration

	mu sync.Mutex
	m  map[string]*session
}

// start makes a session; nil when there are MaxSessions already.
func (ss *sessions) start(owner [32]byte, protocol string) *session {
	now := time.Now()
	s := &session{id: uuid.NewString(), owner: owner, protocol: protocol, last: now, calls: map[string]context.CancelFunc{}}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.m == nil {
		ss.m = make(map[string]*session)
	}
	if len(ss.m) >= ss.max {
		for id, o := range ss.m {
			if o.idleSince(now) > ss.idle {
				delete(ss.m, id)
			}
		}
		if len(ss.m) >= ss.max {
			return nil
		}
	}
	ss.m[s.id] = s
	return s
}

// get returns the session id of owner, marking it used; nil when there is none (never was,
// ended, expired, or another caller's).
func (ss *sessions) get(id string, owner [32]byte) *session {
	ss.mu.Lock()
	s := ss.m[id]
	ss.mu.Unlock()
	if s == nil || s.owner != owner {
		return nil
	}
	now := time.Now()
	if s.idleSince(now) > ss.idle {
		ss.end(s)
		return nil
	}
	s.mu.Lock()
	s.last = now
	s.mu.Unlock()
	return s
}

// end ends a session and cancels its requests.
func (ss *sessions) end(s *session) {
	ss.mu.Lock()
	delete(ss.m, s.id)
	ss.mu.Unlock()
	s.mu.Lock()
	for _, cancel := range s.calls {
		cancel()
	}
	s.mu.Unlock()
}

func (s *session) idleSince(now time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.calls) > 0 {
		return 0
	}
	return now.Sub(s.last)
}

// track records a running request, for cancel; the returned function forgets it.
func (s *session) track(id string, cancel context.CancelFunc) func() {
	s.mu.Lock()
	s.calls[id] = cancel
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.calls, id)
		s.last = time.Now()
		s.mu.Unlock()
	}
}

// cancel cancels the running request id, if any.
func (s *session) cancel(id string) {
	s.mu.Lock()
	cancel := s.calls[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (s *session) logLevel() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.level
}

func (s *session) setLevel(l int) {
	s.mu.Lock()
	s.level = l
	s.mu.Unlock()
}
