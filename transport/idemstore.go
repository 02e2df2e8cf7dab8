package transport

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/fnapi/fnapi/apierr"
)

// IdempotencyTTL is how long the answer of a call made with an Idempotency-Key is kept.
const IdempotencyTTL = 24 * time.Hour

// An IdempotencyStore keeps the answers of the calls made with an Idempotency-Key, by caller
// and key, for IdempotencyTTL. The handler's default is a MemoryIdempotency of its own; several
// nodes behind one address share a store of their own making, so that a retry that lands on
// another node is replayed too. Its methods are called concurrently.
type IdempotencyStore interface {
	// Begin claims the key of the caller scope for a call whose request has the fingerprint
	// fp, and returns nil, nil: the call runs, and Finish ends the claim. When the key holds
	// an answer for fp, Begin returns it to be replayed. When it holds one for another
	// fingerprint, or is claimed for one, Begin returns an error of code
	// IDEMPOTENCY-KEY-REUSED. When the key is claimed for fp (the first call still runs),
	// Begin waits for the claim to end, then answers as above; it returns ctx's error when ctx
	// is done first.
	Begin(ctx context.Context, scope, key string, fp [32]byte) (*IdempotentAnswer, error)
	// Finish ends the claim Begin made: it keeps a for the key, or with a nil, keeps nothing,
	// so that the key may be claimed again.
	Finish(scope, key string, a *IdempotentAnswer)
}

// An IdempotentAnswer is the answer of a call made with an Idempotency-Key, as a repeat of the
// call gets it again.
type IdempotentAnswer struct {
	// Status is the HTTP status.
	Status int
	// Body is the message: a result or an error.
	Body []byte
	// RetryAfter is the Retry-After header of a RATE-LIMITED error; empty when there is none.
	RetryAfter string
}

// IdempotencyLimits bound a MemoryIdempotency. A zero field is its default.
type IdempotencyLimits struct {
	// MaxKeysPerCaller is the most keys kept for one caller; past it the caller's oldest
	// answer is dropped. Default: 1000.
	MaxKeysPerCaller int
	// MaxKeys is the most keys kept in all; past it the oldest answer is dropped. Default:
	// 100,000.
	MaxKeys int
	// MaxBytes is the most bytes the kept answers (with their keys) take in all; past it the
	// oldest answer is dropped. Default: 64 MiB.
	MaxBytes int64
	// Now is the clock. Default: time.Now.
	Now func() time.Time
}

func (l IdempotencyLimits) withDefaults() IdempotencyLimits {
	if l.MaxKeysPerCaller <= 0 {
		l.MaxKeysPerCaller = 1000
	}
	if l.MaxKeys <= 0 {
		l.MaxKeys = 100_000
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = 64 << 20
	}
	if l.Now == nil {
		l.Now = time.Now
	}
	return l
}

// MemoryIdempotency is the IdempotencyStore of one node: its answers live in memory, within its
// IdempotencyLimits. A dropped answer's key may be claimed again (a repeat runs again). Keys
// being answered are never dropped.
type MemoryIdempotency struct {
	lim IdempotencyLimits

	mu      sync.Mutex
	keys    map[idemKey]*idemEntry
	callers map[string]*list.List // of *idemEntry, oldest first, per scope
	all     list.List             // of *idemEntry, oldest first
	bytes   int64
}

type idemKey struct{ scope, key string }

type idemEntry struct {
	k        idemKey
	fp       [32]byte
	created  time.Time
	done     chan struct{} // closed when the claim ends
	answer   *IdempotentAnswer
	size     int64
	inAll    *list.Element
	inCaller *list.Element
}

// entryOverhead is what an entry costs besides its key and answer, for MaxBytes.
const entryOverhead = 256

// NewMemoryIdempotency returns an empty store bounded by l.
func NewMemoryIdempotency(l IdempotencyLimits) *MemoryIdempotency {
	return &MemoryIdempotency{lim: l.withDefaults(), keys: map[idemKey]*idemEntry{}, callers: map[string]*list.List{}}
}

// Begin implements IdempotencyStore.
func (m *MemoryIdempotency) Begin(ctx context.Context, scope, key string, fp [32]byte) (*IdempotentAnswer, error) {
	k := idemKey{scope, key}
	for {
		m.mu.Lock()
		now := m.lim.Now()
		m.expire(now)
		e := m.keys[k]
		if e == nil {
			m.add(&idemEntry{k: k, fp: fp, created: now, done: make(chan struct{}), size: entryOverhead + int64(len(scope)+len(key))})
			m.mu.Unlock()
			return nil, nil
		}
		if e.fp != fp {
			m.mu.Unlock()
			return nil, apierr.New(apierr.IdempotencyKeyReused, "reason", "the key was used with other arguments or for another function")
		}
		if e.answer != nil {
			m.mu.Unlock()
			return e.answer, nil
		}
		done := e.done
		m.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Finish implements IdempotencyStore.
func (m *MemoryIdempotency) Finish(scope, key string, a *IdempotentAnswer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.keys[idemKey{scope, key}]
	if e == nil || e.answer != nil {
		return
	}
	close(e.done)
	if a == nil {
		m.remove(e)
		return
	}
	e.answer = a
	n := int64(len(a.Body) + len(a.RetryAfter))
	e.size += n
	m.bytes += n
	m.evict(scope)
}

// Len returns how many keys the store holds, answered or being answered.
func (m *MemoryIdempotency) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.keys)
}

func (m *MemoryIdempotency) add(e *idemEntry) {
	m.keys[e.k] = e
	e.inAll = m.all.PushBack(e)
	l := m.callers[e.k.scope]
	if l == nil {
		l = list.New()
		m.callers[e.k.scope] = l
	}
	e.inCaller = l.PushBack(e)
	m.bytes += e.size
	m.evict(e.k.scope)
}

func (m *MemoryIdempotency) remove(e *idemEntry) {
	delete(m.keys, e.k)
	m.all.Remove(e.inAll)
	l := m.callers[e.k.scope]
	l.Remove(e.inCaller)
	if l.Len() == 0 {
		delete(m.callers, e.k.scope)
	}
	m.bytes -= e.size
}

// expire drops the answers older than IdempotencyTTL. The list is in the order of the claims,
// so the oldest come first.
func (m *MemoryIdempotency) expire(now time.Time) {
	for el := m.all.Front(); el != nil; {
		e := el.Value.(*idemEntry)
		if now.Sub(e.created) < IdempotencyTTL {
			return
		}
		el = el.Next()
		if e.answer != nil {
			m.remove(e)
		}
	}
}

// evict drops the oldest answers while a limit is passed: those of the caller scope, then
// any.
func (m *MemoryIdempotency) evict(scope string) {
	if l := m.callers[scope]; l != nil {
		dropOldest(l, func() bool { return l.Len() > m.lim.MaxKeysPerCaller }, m.remove)
	}
	dropOldest(&m.all, func() bool { return m.all.Len() > m.lim.MaxKeys || m.bytes > m.lim.MaxBytes }, m.remove)
}

// dropOldest removes the answered entries of l, oldest first, while over holds.
func dropOldest(l *list.List, over func() bool, remove func(*idemEntry)) {
	for el := l.Front(); el != nil && over(); {
		e := el.Value.(*idemEntry)
		el = el.Next()
		if e.answer != nil {
			remove(e)
		}
	}
}
