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

// knownFor is how long an address that logged in as a user stays known for that user.
const knownFor = 30 * 24 * time.Hour

// throttle limits password attempts per client address, per user name from each address, and
// per user name across the addresses not known for it: those without a successful login as
// that user within knownFor. So an attacker elsewhere, however many addresses they hold,
// spends only the budget of unknown addresses and cannot lock a user out of the addresses
// they log in from. An attempt is paid for before the password is checked, so that parallel
// guesses cannot outrun it; a success gives it back.
type throttle struct {
	mu               sync.Mutex
	addr, pair, user limiter              // by address, by user and address, by user
	known            map[string]time.Time // user "\x00" address: the last success
}

func newThrottle(user, addr Limit) *throttle {
	return &throttle{user: newLimiter(user), pair: newLimiter(user), addr: newLimiter(addr),
		known: make(map[string]time.Time)}
}

// begin spends an attempt for user from addr, or returns how long to wait before trying.
func (t *throttle) begin(user, addr string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	pair := user + "\x00" + addr
	known := t.isKnown(pair, now)
	w := max(t.pair.wait(pair, now), t.addr.wait(addr, now))
	if !known {
		w = max(w, t.user.wait(user, now))
	}
	if w > 0 {
		return w
	}
	t.pair.take(pair, now)
	t.addr.take(addr, now)
	if !known {
		t.user.take(user, now)
	}
	return 0
}

// succeeded gives back the attempt (a correct password costs nothing), clears the failures
// of user from addr, and makes addr known for user.
func (t *throttle) succeeded(user, addr string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	pair := user + "\x00" + addr
	if !t.isKnown(pair, now) {
		t.user.give(user, now)
	}
	delete(t.pair.buckets, pair)
	t.addr.give(addr, now)
	if len(t.known) >= maxBuckets {
		for k, at := range t.known {
			if now.Sub(at) >= knownFor {
				delete(t.known, k)
			}
		}
		if len(t.known) >= maxBuckets {
			clear(t.known) // every address unknown again: the strict budget applies
		}
	}
	t.known[pair] = now
}

func (t *throttle) isKnown(pair string, now time.Time) bool {
	at, ok := t.known[pair]
	return ok && now.Sub(at) < knownFor
}
