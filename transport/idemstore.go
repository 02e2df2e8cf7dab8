package transport

import (
	"container/heap"
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
	// MaxKeys is the most keys kept in all; past it an answer is dropped: the oldest of the
	// caller whose answers take the most bytes, so that callers who fill the store drop their
	// own answers before anyone else's. Default: 100,000.
	MaxKeys int
	// MaxBytes is the most bytes the kept answers (with their keys) take in all; past it an
	// answer is dropped as past MaxKeys. Default: 64 MiB.
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
	callers map[string]*idemCaller // by scope
	largest callerHeap             // the callers, the one whose entries take the most bytes first
	all     list.List              // of *idemEntry, oldest first
	bytes   int64
}

// idemCaller is the entries of one caller scope.
type idemCaller struct {
	entries list.List // of *idemEntry, oldest first
	bytes   int64     // their sizes' sum
	index   int       // in MemoryIdempotency.largest
}

// callerHeap is a max-heap of callers by bytes (container/heap).
type callerHeap []*idemCaller

func (h callerHeap) Len() int           { return len(h) }
func (h callerHeap) Less(i, j int) bool { return h[i].bytes > h[j].bytes }
func (h callerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *callerHeap) Push(x any) {
	c := x.(*idemCaller)
	c.index = len(*h)
	*h = append(*h, c)
}
func (h *callerHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return c
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
	return &MemoryIdempotency{lim: l.withDefaults(), keys: map[idemKey]*idemEntry{}, callers: map[string]*idemCaller{}}
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
	m.grow(e, int64(len(a.Body)+len(a.RetryAfter)))
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
	c := m.callers[e.k.scope]
	if c == nil {
		c = &idemCaller{}
		m.callers[e.k.scope] = c
		heap.Push(&m.largest, c)
	}
	e.inCaller = c.entries.PushBack(e)
	size := e.size
	e.size = 0
	m.grow(e, size)
	m.evict(e.k.scope)
}

// grow adds n bytes to e's size, and to its caller's and the store's.
func (m *MemoryIdempotency) grow(e *idemEntry, n int64) {
	c := m.callers[e.k.scope]
	e.size += n
	c.bytes += n
	m.bytes += n
	heap.Fix(&m.largest, c.index)
}

func (m *MemoryIdempotency) remove(e *idemEntry) {
	delete(m.keys, e.k)
	m.all.Remove(e.inAll)
	c := m.callers[e.k.scope]
	c.entries.Remove(e.inCaller)
	c.bytes -= e.size
	m.bytes -= e.size
	if c.entries.Len() == 0 {
		heap.Remove(&m.largest, c.index)
		delete(m.callers, e.k.scope)
	} else {
		heap.Fix(&m.largest, c.index)
	}
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

// evict drops answers while a limit is passed: the caller scope's oldest past
// MaxKeysPerCaller; past MaxKeys or MaxBytes, the oldest of the caller taking the most bytes,
// or, when that caller's calls all run, the oldest of any.
func (m *MemoryIdempotency) evict(scope string) {
	if c := m.callers[scope]; c != nil {
		dropOldest(&c.entries, func() bool { return c.entries.Len() > m.lim.MaxKeysPerCaller }, m.remove)
	}
	over := func() bool { return m.all.Len() > m.lim.MaxKeys || m.bytes > m.lim.MaxBytes }
	for over() {
		n := len(m.keys)
		c := m.largest[0]
		dropOldest(&c.entries, func() bool { return len(m.keys) == n }, m.remove)
		if len(m.keys) == n {
			dropOldest(&m.all, func() bool { return len(m.keys) == n }, m.remove)
		}
		if len(m.keys) == n {
			return // every call runs: none may be dropped
		}
	}
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
