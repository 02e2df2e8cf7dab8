package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/registry"
	"github.com/google/uuid"
)

// session is one MCP session (Mcp-Session-Id): the protocol version agreed, the log level the
// client set, and the requests running, for notifications/cancelled.
type session struct {
	*held           // nil in a stateless request's session, which is held nowhere
	caller   string // whom it counts against (see Server.authenticate)
	protocol string
	// stateless: the session of one request of a stateless revision, held nowhere; its
	// client's capabilities, requestState and inputResponses (see inputsOf), its method and
	// name (its target, which a requestState is signed for), and a tools/call's arguments and
	// progressToken (see callTool): what the request's params and _meta hold, read once
	stateless                          bool
	caps, requestState, inputResponses json.RawMessage
	method, name                       string
	arguments, progress                json.RawMessage
	tool                               *registry.Func // a tools/call's function; nil when unknown
	info                               *toolInfo      // its toolOf
	// its answer, inputs and call state, allocated with it (see post, inputsOf, callTool)
	own struct {
		answer answer
		inputs inputs
		state  callState
	}

	mu    sync.Mutex
	level int // the least severity of the log messages sent
}

// held is what only a session the server holds has (sessions), apart: a stateless request's
// session, one allocation on each request, is smaller without it. Its fields but id and owner
// are guarded by the session's mu.
type held struct {
	id    string
	owner [32]byte // the digest of the tokens of its initialize (transport.Exchange.TokenDigest)
	last  time.Time
	calls map[string]context.CancelFunc
	// the requests of the server waiting for the client's answer, by id (see Request)
	asked   int
	pending map[string]chan jsonrpc.Response
}

// target is what a stateless request's requestState is signed for: its method and name.
func (s *session) target() string { return s.method + " " + s.name }

// sessions holds the sessions of one endpoint, bounded in number in all and per caller,
// ending when idle.
type sessions struct {
	max, perCaller int
	idle           time.Duration

	mu sync.Mutex
	m  map[string]*session
	of map[string][]*session // by caller
}

// Why start makes no session.
var (
	errCallerFull = errors.New("too many sessions of this caller, each running a call: end one (DELETE) or wait")
	errFull       = errors.New("too many sessions")
)

// start makes a session of caller (see Server.authenticate). Past perCaller sessions of the
// caller, its least recently used one that runs no call ends (errCallerFull when each runs
// one); past max in all, once expired ones are dropped, errFull.
func (ss *sessions) start(owner [32]byte, caller, protocol string) (*session, error) {
	now := time.Now()
	s := &session{held: &held{id: uuid.NewString(), owner: owner, last: now, calls: map[string]context.CancelFunc{}}, caller: caller, protocol: protocol}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.m == nil {
		ss.m, ss.of = make(map[string]*session), make(map[string][]*session)
	}
	if mine := ss.of[caller]; len(mine) >= ss.perCaller {
		var lru *session
		var longest time.Duration
		for _, o := range mine {
			if d := o.idleSince(now); !o.busy() && (lru == nil || d > longest) {
				lru, longest = o, d
			}
		}
		if lru == nil {
			return nil, errCallerFull
		}
		ss.drop(lru)
	}
	if len(ss.m) >= ss.max {
		for _, o := range ss.m {
			if o.idleSince(now) > ss.idle {
				ss.drop(o)
			}
		}
		if len(ss.m) >= ss.max {
			return nil, errFull
		}
	}
	ss.m[s.id] = s
	ss.of[caller] = append(ss.of[caller], s)
	return s, nil
}

// drop removes s from the table; ss.mu is held.
func (ss *sessions) drop(s *session) {
	if ss.m[s.id] != s {
		return
	}
	delete(ss.m, s.id)
	mine := slices.DeleteFunc(ss.of[s.caller], func(o *session) bool { return o == s })
	if len(mine) == 0 {
		delete(ss.of, s.caller)
	} else {
		ss.of[s.caller] = mine
	}
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
	ss.drop(s)
	ss.mu.Unlock()
	s.mu.Lock()
	for _, cancel := range s.calls {
		cancel()
	}
	s.mu.Unlock()
}

// busy reports whether the session runs a call.
func (s *session) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls) > 0
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
