package transport

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
)

// RateLimit limits how often each caller may call: on average PerSecond calls a second, with
// bursts of up to Burst calls (a token bucket per key). A call past the limit answers
// RATE-LIMITED with retry_after, the whole seconds until a call would be admitted (the HTTP
// answer also sets Retry-After). Public functions are limited like the others, and so are the
// requests of endpoints that call no function (registry.Call.Metered: an MCP ping, tools/list).
//
// Put its Interceptor after the authentication interceptor, so that Key can tell callers apart
// by identity:
//
//	fnapi.WithInterceptors(authenticator.Interceptor(), limit.Interceptor())
type RateLimit struct {
	// PerSecond is the average rate allowed per key. Required: a zero limit admits nothing.
	PerSecond float64
	// Burst is how many calls a key may make at once after being idle. Default: PerSecond
	// rounded up, at least 1.
	Burst int
	// Key names whom a call counts against. Default: (*registry.Call).Client, the client's IP
	// address (an IPv6 address by its /64).
	Key func(*registry.Call) string
	// MaxKeys bounds the memory of the limiter: past it, buckets idle long enough to be full
	// again are dropped, and should more than twice as many keys be active at once (callers
	// forging addresses), every bucket is dropped, which lets each key burst once more.
	// Default: 100,000.
	MaxKeys int
	// Now returns the time; time.Now when nil. For tests.
	Now func() time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

// Interceptor returns the interceptor that applies the limit. Each call of Interceptor makes a
// limiter of its own.
func (l RateLimit) Interceptor() registry.Interceptor {
	if l.Burst <= 0 {
		l.Burst = max(1, int(math.Ceil(l.PerSecond)))
	}
	if l.Key == nil {
		l.Key = (*registry.Call).Client
	}
	if l.MaxKeys <= 0 {
		l.MaxKeys = 100_000
	}
	if l.Now == nil {
		l.Now = time.Now
	}
	var mu sync.Mutex
	buckets := make(map[string]*bucket)
	return func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (any, error) {
			if c.Probe() && !c.Metered() {
				return next(ctx, c)
			}
			key, now := l.Key(c), l.Now()
			mu.Lock()
			b := buckets[key]
			if b == nil {
				if len(buckets) >= l.MaxKeys {
					l.sweep(buckets, now)
					if len(buckets) >= 2*l.MaxKeys {
						clear(buckets)
					}
				}
				b = &bucket{tokens: float64(l.Burst), at: now}
				buckets[key] = b
			}
			b.tokens = math.Min(float64(l.Burst), b.tokens+now.Sub(b.at).Seconds()*l.PerSecond)
			b.at = now
			admit := b.tokens >= 1
			var wait float64
			if admit {
				b.tokens--
			} else if l.PerSecond > 0 {
				wait = (1 - b.tokens) / l.PerSecond
			} else {
				wait = math.Inf(1)
			}
			mu.Unlock()
			if !admit {
				return nil, apierr.New(apierr.RateLimited, "retry_after", retryAfter(wait))
			}
			return next(ctx, c)
		}
	}
}

// sweep drops the buckets that have refilled completely: forgetting them changes nothing.
func (l RateLimit) sweep(buckets map[string]*bucket, now time.Time) {
	for k, b := range buckets {
		if b.tokens+now.Sub(b.at).Seconds()*l.PerSecond >= float64(l.Burst) {
			delete(buckets, k)
		}
	}
}

func retryAfter(seconds float64) int {
	if math.IsInf(seconds, 1) || seconds > 86400 {
		return 86400
	}
	return max(1, int(math.Ceil(seconds)))
}
