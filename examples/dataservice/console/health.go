package console

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"time"

	"go.uber.org/zap"
)

// The health paths, outside /api: load balancers and orchestrators call them without a token.
const (
	// LivePath answers 200 while the process serves HTTP at all: restart the node when it
	// does not.
	LivePath = "/livez"
	// ReadyPath answers 200 when the node can serve calls, and 503 with the reason while it
	// cannot: a store does not answer within a second, or the node is shutting down (see
	// Drain). A load balancer sends calls only to ready nodes.
	ReadyPath = "/readyz"
)

func (c *Component) live(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok\n"))
}

func (c *Component) ready(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if reason := c.unready(r.Context()); reason != "" {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("not ready: " + reason + "\n"))
		return
	}
	w.Write([]byte("ok\n"))
}

// unready returns why the node cannot serve calls, or "" when it can. The reason names the
// store, never its error (the log has that): the answer goes to anyone who asks.
func (c *Component) unready(ctx context.Context) string {
	if c.draining.Load() {
		return "shutting down"
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	pingers := c.deps.Pingers()
	for _, name := range slices.Sorted(maps.Keys(pingers)) {
		if err := pingers[name](ctx); err != nil {
			c.log.Debug("console: not ready", zap.String("store", name), zap.Error(err))
			return name + " unreachable"
		}
	}
	return ""
}

// Drain makes the node answer not ready from now on, so that load balancers stop sending it
// new connections before it shuts down; it keeps serving what it receives meanwhile.
func (c *Component) Drain() { c.draining.Store(true) }
