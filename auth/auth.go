package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Authenticator checks the tokens of calls and serves the identity functions (login,
// create-api-key, ...) over a Store. It is safe for concurrent use. Call Close when done
// serving, to write the last uses of sessions and keys to the store.
type Authenticator struct {
	store     Store
	log       *zap.Logger
	now       func() time.Time
	idle      atomic.Int64 // time.Duration
	max       atomic.Int64 // time.Duration
	cacheTTL  int64
	flush     time.Duration
	maxKeys   int
	adminPass string // WithAdminPassword
	hasher    *hasher
	dummy     string // a password hash no password matches, checked for unknown users
	throttle  *throttle
	cache     *cache
	streams   *streams

	flushMu   sync.Mutex // one flush at a time
	flushing  atomic.Bool
	lastFlush atomic.Int64 // unix nanoseconds
	bg        sync.WaitGroup
}

// New returns an Authenticator over store. New(store) with no option is safe: sessions last at
// most 1 h idle and 24 h in all, and passwords cost argon2id at 19 MiB.
func New(store Store, opts ...Option) (*Authenticator, error) {
	if store == nil {
		return nil, errors.New("auth: nil store")
	}
	c := config{
		log: zap.NewNop(), now: time.Now, idle: time.Hour, max: 24 * time.Hour,
		cacheTTL: 2 * time.Second, cacheMax: 10000, flushEvery: 15 * time.Second,
		hashes: runtime.GOMAXPROCS(0), maxKeys: DefaultMaxKeys,
		userLimit: Limit{Burst: 5, Every: 30 * time.Second}, addrLimit: Limit{Burst: 20, Every: 3 * time.Second},
	}
	for _, o := range opts {
		o(&c)
	}
	switch {
	case c.log == nil || c.now == nil:
		return nil, errors.New("auth: nil logger or clock")
	case c.cacheTTL < 0 || c.cacheMax < 1 || c.flushEvery <= 0 || c.hashes < 1 || c.maxKeys < 1:
		return nil, errors.New("auth: cache TTL, cache size, flush interval, concurrent hashes and keys per user must be positive")
	case c.userLimit.Burst < 1 || c.userLimit.Every <= 0 || c.addrLimit.Burst < 1 || c.addrLimit.Every <= 0:
		return nil, errors.New("auth: login limits must be positive")
	}
	a := &Authenticator{
		store: store, log: c.log, now: c.now, cacheTTL: int64(c.cacheTTL),
		flush: c.flushEvery, maxKeys: c.maxKeys, adminPass: c.adminPass,
		hasher:   &hasher{params: c.argon2.withDefaults(), sem: make(chan struct{}, c.hashes)},
		throttle: newThrottle(c.userLimit, c.addrLimit),
		streams:  &streams{},
	}
	a.cache = newCache(c.cacheMax, a.streams)
	if err := a.SetSessionLimits(c.idle, c.max); err != nil {
		return nil, err
	}
	var err error
	if a.dummy, err = a.hasher.params.hashPassword(rand.Text()); err != nil {
		return nil, err
	}
	a.lastFlush.Store(a.now().UnixNano())
	return a, nil
}

// SetSessionLimits changes the idle timeout and the maximum lifetime of sessions, for sessions
// already open too. It is safe to call while serving.
func (a *Authenticator) SetSessionLimits(idle, max time.Duration) error {
	if idle <= 0 || max <= 0 {
		return fmt.Errorf("auth: session limits must be positive (idle %v, max %v)", idle, max)
	}
	a.idle.Store(int64(idle))
	a.max.Store(int64(max))
	return nil
}

// SessionLimits returns the idle timeout and the maximum lifetime of sessions.
func (a *Authenticator) SessionLimits() (idle, max time.Duration) {
	return time.Duration(a.idle.Load()), time.Duration(a.max.Load())
}

// Close writes the last uses of sessions and keys to the store and waits for background
// writes to end. The Authenticator still works afterwards; the store is the caller's to close.
func (a *Authenticator) Close(ctx context.Context) error {
	a.bg.Wait()
	return a.Flush(ctx)
}
