package fnapi

import "time"

// WithWSMaxMessageBytes limits one incoming WebSocket message; a larger one closes the
// connection with status 1009. Default: 1 MiB.
func WithWSMaxMessageBytes(n int64) Option {
	return func(c *config) { c.t.WS.MaxMessageBytes = n }
}

// WithWSMaxInFlight limits the calls running at once on one WebSocket connection; past it, as
// many more wait for a slot, at most a second, then are refused with RATE-LIMITED.
// Default: 64.
func WithWSMaxInFlight(n int) Option {
	return func(c *config) { c.t.WS.MaxInFlight = n }
}

// WithWSPingInterval sets how often an idle WebSocket connection is pinged (a peer that does
// not answer within the write timeout is disconnected), and the interval of the keepalive
// comments of idle Server-Sent Event streams. Default: 30 s.
func WithWSPingInterval(d time.Duration) Option {
	return func(c *config) { c.t.WS.PingInterval = d }
}

// WithWriteTimeout sets how long a write may block on a client that does not read before the
// WebSocket connection is closed, or the HTTP stream ends. Default: 10 s.
func WithWriteTimeout(d time.Duration) Option {
	return func(c *config) { c.t.WS.WriteTimeout = d }
}

// WithWSShutdownTimeout sets how long the calls running on WebSocket connections may take to
// finish when the http.Server shuts down, before they are cancelled (see Handler.Shutdown).
// Default: 10 s.
func WithWSShutdownTimeout(d time.Duration) Option {
	return func(c *config) { c.t.WS.ShutdownTimeout = d }
}

// WithWSCompressMinBytes sets the size from which a message to a WebSocket client that offered
// permessage-deflate is compressed; negative: the extension is not negotiated. Answers of
// registry.NoStore functions are never compressed. Default: 1024.
func WithWSCompressMinBytes(n int) Option {
	return func(c *config) { c.t.WS.CompressMinBytes = n }
}

// WithWSIdleTimeout closes a WebSocket connection that has no call running and received
// nothing for d. Default: none (pings keep idle connections open).
func WithWSIdleTimeout(d time.Duration) Option {
	return func(c *config) { c.t.WS.IdleTimeout = d }
}
