package auth

import (
	"context"
	"sync"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// A stream runs long after its token was checked. So that revoking a key, ending a session
// (logout, expiry), deleting a user or changing its role ends the streams they started, the interceptor registers
// each streaming call with its token's cache entry; revocations through this Authenticator end
// them at once, and a sweeper checks the running streams' tokens every streamSweep: sessions
// past their maximum lifetime, and tokens the store no longer has (revoked through another
// server sharing it) once their cached copy is older than the cache TTL. A running stream
// counts as a use of its session, for the idle timeout.

// streamSweep is how often the tokens of running streams are checked.
const streamSweep = 250 * time.Millisecond

// watch is one running stream.
type watch struct {
	e      *entry
	fn     string
	cancel context.CancelCauseFunc
}

// streams are the running streams, by their tokens.
type streams struct {
	mu       sync.Mutex
	m        map[*watch]struct{}
	sweeping bool
}

// watchStream returns the context of a streaming call made with the token of e, ended with
// API-AUTHENTICATION-NEEDED when the token ends, and the function that unregisters it.
func (a *Authenticator) watchStream(ctx context.Context, e *entry, c *registry.Call) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watch{e: e, fn: c.Func.Name, cancel: cancel}
	s := a.streams
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[*watch]struct{})
	}
	s.m[w] = struct{}{}
	start := !s.sweeping
	s.sweeping = true
	s.mu.Unlock()
	if start {
		go a.sweep()
	}
	return ctx, func() {
		s.mu.Lock()
		delete(s.m, w)
		s.mu.Unlock()
		cancel(nil)
	}
}

// end ends the streams whose token matches.
func (s *streams) end(match func(*entry) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.m {
		if match(w.e) {
			w.cancel(tokenEnded(w.fn))
			delete(s.m, w)
		}
	}
}

func tokenEnded(fn string) error {
	return apierr.New(apierr.AuthenticationNeeded, "path", fn,
		"reason", "the stream's token ended or changed: revoked, logged out, expired, its user deleted or given another role")
}

// sweep checks the tokens of the running streams every streamSweep, until none runs.
func (a *Authenticator) sweep() {
	t := time.NewTicker(streamSweep)
	defer t.Stop()
	for range t.C {
		s := a.streams
		s.mu.Lock()
		if len(s.m) == 0 {
			s.sweeping = false
			s.mu.Unlock()
			return
		}
		entries := make(map[*entry]bool, len(s.m))
		for w := range s.m {
			entries[w.e] = true
		}
		s.mu.Unlock()
		for e := range entries {
			if !a.stillValid(e) {
				s.end(func(x *entry) bool { return x == e })
			}
		}
	}
}

// stillValid reports whether the token of e is still valid, reading the store when the cached
// copy is older than the cache TTL, and counts the stream as a use of its session.
func (a *Authenticator) stillValid(e *entry) bool {
	now := a.now().UnixNano()
	if e.session {
		if now-e.created >= a.max.Load() {
			return false
		}
		if now-e.used.Load() > int64(time.Second) {
			e.used.Store(now)
		}
	}
	if now-e.loaded.Load() < a.cacheTTL {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fresh, err := a.load(ctx, e.hash, e.session)
	if err != nil {
		a.log.Warn("auth: checking the token of a running stream", zap.Error(err))
		return true // the store failing is no revocation
	}
	if fresh == nil {
		a.cache.remove(e.hash)
		return false
	}
	e.loaded.Store(now)
	return true
}
