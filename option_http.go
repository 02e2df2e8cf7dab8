package fnapi

import "github.com/fnapi/fnapi/transport"

// WithIdempotencyStore keeps the answers of calls made with an Idempotency-Key in s (see
// transport.IdempotencyStore): a store several nodes share, so that a retry that lands on
// another node is replayed too, or a transport.MemoryIdempotency with limits of your own.
// Default: the handler's own memory, within the default transport.IdempotencyLimits (1,000
// keys per caller, 100,000 and 64 MiB in all).
func WithIdempotencyStore(s transport.IdempotencyStore) Option {
	return func(c *config) { c.t.Idempotency = s }
}

// WithMaxIdempotentAnswerBytes sets the largest answer kept for an Idempotency-Key: a larger
// one reaches its caller, and a repeat gets CONFLICT instead of a second run. Default: 64 KiB.
func WithMaxIdempotentAnswerBytes(n int) Option {
	return func(c *config) { c.t.MaxIdempotentAnswerBytes = n }
}
