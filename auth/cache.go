package auth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fnapi/fnapi/auth/authapi"
	"go.uber.org/zap"
)

// entry is a checked token: a session or an API key, with what a call needs to know of it.
type entry struct {
	hash    Hash
	session bool // else an API key
	user    string
	role    authapi.Role
	keyName string
	created int64        // unix nanoseconds
	since   int64        // when its user was created, unix nanoseconds
	loaded  atomic.Int64 // when the store last confirmed it, unix nanoseconds
	used    atomic.Int64 // last use, unix nanoseconds
	flushed atomic.Int64 // the last use the store has
}

// cache holds checked tokens by hash, so that a call with a known token costs a hash and a map
// read. gen counts invalidations: a token read from the store is cached only if nothing was
// invalidated meanwhile, so a revocation cannot be undone by a concurrent read.
type cache struct {
	mu      sync.RWMutex
	m       map[Hash]*entry
	max     int
	gen     atomic.Uint64
	pending []*entry // evicted entries whose last use the store does not have yet
	streams *streams // the running streams, ended with their tokens
}

func newCache(max int, s *streams) *cache {
	return &cache{m: make(map[Hash]*entry), max: max, streams: s}
}

func (c *cache) get(h Hash) *entry {
	c.mu.RLock()
	e := c.m[h]
	c.mu.RUnlock()
	return e
}

// put caches e, unless an invalidation happened since gen was read.
func (c *cache) put(e *entry, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen.Load() != gen {
		return
	}
	if len(c.m) >= c.max {
		n := c.max/8 + 1
		for h, old := range c.m { // map order is random: evict arbitrary entries
			if old.used.Load() > old.flushed.Load() {
				c.pending = append(c.pending, old)
			}
			delete(c.m, h)
			if n--; n == 0 {
				break
			}
		}
	}
	c.m[e.hash] = e
}

// drop removes the entries for which match is true, and ends their streams.
func (c *cache) drop(match func(*entry) bool) {
	c.mu.Lock()
	c.gen.Add(1)
	for h, e := range c.m {
		if match(e) {
			delete(c.m, h)
		}
	}
	c.mu.Unlock()
	c.streams.end(match)
}

// remove removes the entry of h, and ends its streams.
func (c *cache) remove(h Hash) {
	c.mu.Lock()
	c.gen.Add(1)
	delete(c.m, h)
	c.mu.Unlock()
	c.streams.end(func(e *entry) bool { return e.hash == h })
}

// unflushed returns the entries whose last use the store does not have, and what that use is.
func (c *cache) unflushed() ([]*entry, []int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var es []*entry
	var at []int64
	seen := make(map[*entry]bool, len(c.pending))
	add := func(e *entry) {
		if u := e.used.Load(); u > e.flushed.Load() && !seen[e] {
			seen[e] = true
			es, at = append(es, e), append(at, u)
		}
	}
	for _, e := range c.m {
		add(e)
	}
	for _, e := range c.pending {
		add(e)
	}
	c.pending = nil
	return es, at
}

// Flush writes the last uses of sessions and keys to the store in one batch, and removes
// expired sessions from it. The Authenticator flushes by itself every flush interval (see
// WithFlushInterval) and on Close.
func (a *Authenticator) Flush(ctx context.Context) error {
	a.flushMu.Lock()
	defer a.flushMu.Unlock()
	now := a.now()
	a.lastFlush.Store(now.UnixNano())
	es, at := a.cache.unflushed()
	var sessions, keys []Touch
	for i, e := range es {
		t := Touch{Hash: e.hash, At: time.Unix(0, at[i]).UTC()}
		if e.session {
			sessions = append(sessions, t)
		} else {
			keys = append(keys, t)
		}
	}
	var errs []error
	if len(sessions) > 0 {
		errs = append(errs, a.store.TouchSessions(ctx, sessions))
	}
	if len(keys) > 0 {
		errs = append(errs, a.store.TouchKeys(ctx, keys))
	}
	if err := errors.Join(errs...); err != nil {
		// Keep them for the next flush.
		a.cache.mu.Lock()
		a.cache.pending = append(a.cache.pending, es...)
		a.cache.mu.Unlock()
		return fmt.Errorf("auth: recording last uses: %w", err)
	}
	for i, e := range es {
		e.flushed.Store(at[i])
	}
	idle, max := a.SessionLimits()
	if err := a.store.PurgeSessions(ctx, now.Add(-idle), now.Add(-max)); err != nil {
		return fmt.Errorf("auth: removing expired sessions: %w", err)
	}
	return nil
}

// maybeFlush starts a flush in the background when the last one is older than the flush
// interval. Calls never wait for it.
func (a *Authenticator) maybeFlush(now int64) {
	if now-a.lastFlush.Load() < int64(a.flush) || !a.flushing.CompareAndSwap(false, true) {
		return
	}
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		defer a.flushing.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := a.Flush(ctx); err != nil {
			a.log.Warn("auth: background flush failed", zap.Error(err))
		}
	}()
}
