package client

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/base64"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// Retries. With WithRetries(n), Client.Call (the typed Call too, over HTTPS; not Stream nor a
// WSConn) sends its call again, up to n more times, when an attempt got no answer (the
// connection failed or broke, ctx still running), or a 502, 503 or 504 that is not an
// answer of the function (a proxy's), or UNAVAILABLE. It waits 100 ms before the first retry,
// twice as long before each next one, at most 2 s (each wait drawn between half and all of
// it), or what a Retry-After of at most 10 s asks. Any other answer, errors included, ends
// the call: TIMEOUT and RATE-LIMITED are for the program to weigh.
//
// Every attempt of one call carries the same Idempotency-Key, drawn at random for the call
// (128 bits), or the key the context names (WithIdempotencyKey): the server runs a function
// that changes things once for the key, and answers its retries with the first answer, even
// when the first attempt's answer was lost on the way, and on another node when the nodes
// share their store. Read-only functions ignore the key.

// defaultMaxRetryAfter is the longest Retry-After a retry waits for.
const defaultMaxRetryAfter = 10 * time.Second

// WithRetries retries a Call that got no answer up to n times, with one Idempotency-Key for
// all its attempts (see the package doc). Default: 0, no retries and no key.
func WithRetries(n int) Option { return func(o *options) { o.retries = max(n, 0) } }

type idemKeyCtx struct{}

// WithIdempotencyKey returns a context whose calls (Client.Call) carry the Idempotency-Key
// key, on every attempt, instead of one drawn for each call: a program that keeps the key
// (to retry after a restart) gives it so. The server takes 1 to 255 bytes.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idemKeyCtx{}, key)
}

func idempotencyKeyOf(ctx context.Context) string {
	k, _ := ctx.Value(idemKeyCtx{}).(string)
	return k
}

// newIdempotencyKey returns 128 random bits in base64url.
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = cryptorand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// retry says whether an attempt may be made again: after is what its Retry-After asked (0
// for none), negative when it may not.
type retry struct{ after time.Duration }

var noRetry = retry{after: -1}

// retryOnError is the retry of an attempt that got no answer: none when ctx ended it.
func retryOnError(ctx context.Context) retry {
	if ctx.Err() != nil {
		return noRetry
	}
	return retry{}
}

// retryOnStatus is the retry of an attempt answered res: a 502, 503 or 504 that is not the
// server's message (a proxy's), or UNAVAILABLE, the server's error unavailable names.
func retryOnStatus(res *http.Response, message, unavailable bool) retry {
	switch {
	case message && !unavailable:
		return noRetry
	case res.StatusCode == http.StatusServiceUnavailable:
		after := time.Duration(0)
		if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s > 0 {
			after = min(time.Duration(s)*time.Second, defaultMaxRetryAfter)
		}
		return retry{after: after}
	case res.StatusCode == http.StatusBadGateway, res.StatusCode == http.StatusGatewayTimeout:
		return retry{}
	}
	return noRetry
}

// backoff is the wait before retry attempt+1: what Retry-After asked, or else 100 ms doubled
// each attempt, at most 2 s, drawn between half and all of it.
func backoff(attempt int, after time.Duration) time.Duration {
	if after > 0 {
		return after
	}
	d := min(100*time.Millisecond<<min(attempt, 5), 2*time.Second)
	return d/2 + rand.N(d/2+1)
}

// pause waits d, and reports false when ctx ends first.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
