package auth

import (
	"math"
	"sync"
	"time"
)

// Limit is a budget of failed attempts: Burst of them at once, then one more every Every.
type Limit struct {
	// Burst is how many failures are allowed before the first wait.
	Burst int
	// Every is how long it takes to earn one more attempt.
	Every time.Duration
}

// maxBuckets bounds the memory of each limiter. Past it, buckets that have refilled are
// dropped, and when none has, all are (an attacker with that many addresses gains little).
const maxBuckets = 100_000

// limiter is a token bucket per key (a user name or a client address).
type limiter struct {
	lim     Limit
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(l Limit) limiter {
	return limiter{lim: l, buckets: make(map[string]*bucket)}
}

// get returns key's bucket, refilled up to now (nil for a full one that does not exist yet).
func (l *limiter) get(key string, now time.Time) *bucket {
	b := l.buckets[key]
	if b == nil {
		return nil
	}
	b.tokens = math.Min(float64(l.lim.Burst), b.tokens+float64(now.Sub(b.at))/float64(l.lim.Every))
	b.at = now
	return b
}

// wait returns how long until key has an attempt: zero when it has one now.
func (l *limiter) wait(key string, now time.Time) time.Duration {
	b := l.get(key, now)
	if b == nil || b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) * float64(l.lim.Every))
}

// take spends one attempt of key.
func (l *limiter) take(key string, now time.Time) {
	b := l.get(key, now)
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			l.sweep(now)
		}
		b = &bucket{tokens: float64(l.lim.Burst), at: now}
		l.buckets[key] = b
	}
	b.tokens--
}

// give returns one attempt to key.
func (l *limiter) give(key string, now time.Time) {
	if b := l.get(key, now); b != nil {
		b.tokens = math.Min(float64(l.lim.Burst), b.tokens+1)
	}
}

func (l *limiter) sweep(now time.Time) {
	for k := range l.buckets {
		if b := l.get(k, now); b.tokens >= float64(l.lim.Burst) {
			delete(l.buckets, k)
		}
	}
	if len(l.buckets) >= maxBuckets {
		clear(l.buckets)
	}
}

// throttle limits password attempts per user and per client address. An attempt is paid for
// before the password is checked, so that parallel guesses cannot outrun it; a success gives
// it back.
type throttle struct {
	mu         sync.Mutex
	user, addr limiter
}

func newThrottle(user, addr Limit) *throttle {
	return &throttle{user: newLimiter(user), addr: newLimiter(addr)}
}

// begin spends an attempt for user from addr, or returns how long to wait before trying.
func (t *throttle) begin(user, addr string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w := max(t.user.wait(user, now), t.addr.wait(addr, now)); w > 0 {
		return w
	}
	t.user.take(user, now)
	t.addr.take(addr, now)
	return 0
}

// succeeded gives back the attempt: a correct password costs nothing.
func (t *throttle) succeeded(user, addr string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.user.buckets, user)
	t.addr.give(addr, now)
}
