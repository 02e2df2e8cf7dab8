package fnapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// Handler serves a registry over HTTP, Server-Sent Events and WebSocket (see New). It is an
// http.Handler to mount under a prefix with http.StripPrefix, and safe for concurrent use.
type Handler struct {
	t       *transport.Handler
	metrics *transport.Metrics // nil without WithMetrics
}

// New returns the Handler that serves reg, configured by opts: each option sets its own
// setting, so they compose in any order (one given twice: the last wins, except the options
// that add to a list, which add). It refuses a registry with no function or whose versions are
// incompatible (see registry.Registry.Check). New(reg) with no option is safe: no logging, only
// public functions callable until an authentication interceptor is added with
// WithInterceptors, and every limit at its default. Call the handler's Shutdown when the
// server stops, to end its WebSocket connections and wait for them.
func New(reg *registry.Registry, opts ...Option) (*Handler, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.metrics {
		c.t.Metrics = &transport.Metrics{}
	}
	t, err := transport.New(reg, c.t)
	if err != nil {
		return nil, fmt.Errorf("fnapi: %w", err)
	}
	return &Handler{t: t, metrics: c.t.Metrics}, nil
}

// ServeHTTP answers one request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.t.ServeHTTP(w, r) }

// Shutdown ends the handler's WebSocket connections cleanly: new handshakes are refused (503),
// new calls on open connections answer CANCELLED, the calls running may finish until ctx is
// done and are then cancelled, and each connection then closes with status 1001 (going away).
// It returns once every connection has ended, or ctx.Err(). An http.Server the handler serves
// through does this by itself when it shuts down (see WithWSShutdownTimeout); call Shutdown to
// wait for the connections to end, or when serving otherwise. HTTP requests and streams are
// http.Server.Shutdown's to wait for.
func (h *Handler) Shutdown(ctx context.Context) error { return h.t.Shutdown(ctx) }

// Metrics returns the handler of the per-function metrics in the Prometheus text format
// (calls, errors by code, latency, calls in flight, chunks, connections), to serve at a path of
// your choice; nil without WithMetrics.
func (h *Handler) Metrics() http.Handler {
	if h.metrics == nil {
		return nil
	}
	return h.metrics.Handler()
}
