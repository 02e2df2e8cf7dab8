package transport

import (
	"net/http"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/version"
)

// WSConfig configures the WebSocket endpoint. The zero value is usable: each field's comment
// names its default.
type WSConfig struct {
	// MaxMessageBytes limits one incoming message; a larger one closes the connection with
	// status 1009. Default: 1 MiB.
	MaxMessageBytes int64
	// MaxInFlight limits the calls running at once on one connection; past it the server stops
	// reading until one finishes. Default: 64.
	MaxInFlight int
	// PingInterval is how often an idle connection is pinged. Default: 30 s.
	PingInterval time.Duration
	// WriteTimeout is how long a write may block on a client that does not read before the
	// connection is closed. Default: 10 s.
	WriteTimeout time.Duration
}

func (c WSConfig) withDefaults() WSConfig {
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = 1 << 20
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = 64
	}
	if c.PingInterval <= 0 {
		c.PingInterval = 30 * time.Second
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 10 * time.Second
	}
	return c
}

// serveWS serves the WebSocket endpoint at version v.
func (h *Handler) serveWS(w http.ResponseWriter, r *http.Request, v version.Version) {
	_ = v
	writeError(w, apierr.New(apierr.UnknownFunction, "path", "ws"))
}
