package console

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// DefaultRateLimit is the default of -rate-limit and of the rate_limit configuration key: calls
// per second per caller, in bursts of up to twice as many. 200 is far above what a person with
// the web UI makes (a dashboard of 20 widgets opens with 20 calls), and high enough for a
// program with an API key that queries in a loop, while a runaway client or a brute-force
// script still cannot take the whole server, which answers tens of thousands of simple calls
// a second (BENCHMARKS.md). A load test of the service itself wants -rate-limit 0.
const DefaultRateLimit = 200

// NoRateLimit as Configuration.RateLimit turns the call rate limit off (-rate-limit 0).
const NoRateLimit = -1

// KeysBurst and KeysPerMinute bound how fast one user creates API keys, whatever the call
// rate limit: each creation (and each revocation) is an event of the user's audit quota, and
// a session's holder creating and revoking keys in a loop filled it in minutes. At one a
// minute past a burst of 20, it takes weeks; and security self-service is never refused by
// the quota anyway (manage.Security).
const (
	KeysBurst     = 20
	KeysPerMinute = 1
)

// keyCreation returns the interceptor that applies KeysBurst and KeysPerMinute to
// create-api-key, per user (RATE-LIMITED with retry_after past them).
func keyCreation() registry.Interceptor {
	l := transport.RateLimit{PerSecond: KeysPerMinute / 60.0, Burst: KeysBurst, Key: callerKey}.Interceptor()
	return func(next registry.Handler) registry.Handler {
		limited := l(next)
		return func(ctx context.Context, c *registry.Call) (any, error) {
			if c.Func.Name == authapi.CreateAPIKey.Name() && !c.Probe() {
				return limited(ctx, c)
			}
			return next(ctx, c)
		}
	}
}

// callLimit limits how often each caller may call: a user by name, an anonymous caller by
// address. Its rate can change while serving (the rate_limit configuration key); a change
// starts every caller with a full burst. It is safe for concurrent use.
type callLimit struct {
	mu     sync.Mutex
	rate   int
	chains []*atomic.Pointer[registry.Handler] // one per place the interceptor wraps
	nexts  []registry.Handler
}

func callerKey(c *registry.Call) string {
	if id, ok := c.Identity.(*auth.Identity); ok {
		return "user " + id.User
	}
	return c.Client()
}

// limited returns next limited at rate calls per second, or next itself for 0 (no limit).
func limited(rate int, next registry.Handler) registry.Handler {
	if rate <= 0 {
		return next
	}
	l := transport.RateLimit{PerSecond: float64(rate), Burst: 2 * rate, Key: callerKey}
	return l.Interceptor()(next)
}

// Interceptor returns the interceptor that applies the current rate.
func (l *callLimit) Interceptor() registry.Interceptor {
	return func(next registry.Handler) registry.Handler {
		p := new(atomic.Pointer[registry.Handler])
		l.mu.Lock()
		h := limited(l.rate, next)
		p.Store(&h)
		l.chains, l.nexts = append(l.chains, p), append(l.nexts, next)
		l.mu.Unlock()
		return func(ctx context.Context, c *registry.Call) (any, error) {
			return (*p.Load())(ctx, c)
		}
	}
}

// set changes the rate (0: no limit). Calls already admitted are not affected.
func (l *callLimit) set(rate int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if rate == l.rate {
		return
	}
	l.rate = rate
	for i, p := range l.chains {
		h := limited(rate, l.nexts[i])
		p.Store(&h)
	}
}
