package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/coder/websocket"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
)

// The WebSocket subsystem is the files named ws*.go and package internal/wsmessage, one
// concept each, in the order a connection and a message meet them:
//
//   - ws.go: WSConfig, and serveWS, the handshake: the Origin check, the handshake's tokens
//     (credentials.go), the upgrade; then the connection is served by a goroutine of its own;
//   - wscompress.go: permessage-deflate, offered at the handshake, and which messages skip it;
//   - wsconn.go: wsConn, one connection: its goroutines, the read loop, dispatch of each
//     message to a slot (WSConfig.MaxInFlight), cancellation, pings and the idle timeout;
//   - internal/wsmessage: reading a call message, {"id", "call" or "stream", "args",
//     "meta"}: the one-pass reader of the usual shape, else encoding/json (a package of its
//     own, the one piece that needs nothing of the Handler);
//   - wsworker.go: the goroutines that run the calls, reused from one call to the next;
//   - wscall.go: one call: its registry.Call (the handshake's tokens, or the message's),
//     its context (deadline.go), running it through the interceptors, a stream's sink;
//   - wswrite.go: the write queue: answers and chunks are queued and written in batches by
//     one goroutine, with back-pressure on a client that does not read.
//
// Shutdown (shutdown.go) and the connection count (metrics.go) are shared with HTTP.

// WSConfig configures the WebSocket endpoint. The zero value is usable: each field's comment
// names its default.
type WSConfig struct {
	// MaxMessageBytes limits one incoming message; a larger one closes the connection with
	// status 1009. Default: 1 MiB.
	MaxMessageBytes int64
	// MaxInFlight limits the calls running at once on one connection. Past it, as many more
	// calls wait for a slot; a call that finds no room among those waits at most a second
	// for it, then is refused with RATE-LIMITED. So the connection goes on reading whatever
	// runs, and sees a close, a ping, a cancel or a dead peer. Default: 64.
	MaxInFlight int
	// PingInterval is how often an idle connection is pinged; a peer that does not answer
	// within WriteTimeout is disconnected. It is also the interval of the keepalive comments of
	// idle Server-Sent Event streams. Default: 30 s.
	PingInterval time.Duration
	// WriteTimeout is how long a write may block on a client that does not read before the
	// connection is closed (for HTTP streams: before the stream ends). Default: 10 s.
	WriteTimeout time.Duration
	// ShutdownTimeout is how long the calls running on WebSocket connections may take to finish
	// when the http.Server shuts down, before they are cancelled (see Handler.Shutdown).
	// Default: 10 s.
	ShutdownTimeout time.Duration
	// CompressMinBytes is the size from which a message to a client that offered
	// permessage-deflate is compressed (see wscompress.go); negative: the extension is not
	// negotiated. The answers of registry.NoStore functions are never compressed. Default: 1024.
	CompressMinBytes int
	// IdleTimeout closes a connection that has no call running and received nothing for this
	// long. Default: none (pings keep idle connections open).
	IdleTimeout time.Duration
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
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = 10 * time.Second
	}
	if c.CompressMinBytes == 0 {
		c.CompressMinBytes = 1024
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 10 * time.Second
	}
	return c
}

// serveWS serves the WebSocket endpoint at version v: it checks the handshake's Origin, reads
// its tokens, upgrades the connection and serves calls until the connection closes.
func (h *Handler) serveWS(w http.ResponseWriter, r *http.Request, v version.Version) {
	if o := r.Header.Get("Origin"); o != "" && !h.originAllowed(o, r) {
		writeError(w, apierr.New(apierr.OriginNotAllowed, "origin", o))
		return
	}
	// The handshake's tokens: cookie, header, _session and _key in the URL.
	var base registry.Call
	args := make(map[string]json.RawMessage, 2)
	if q, err := url.ParseQuery(r.URL.RawQuery); err == nil {
		for _, name := range []string{argSession, argKey} {
			if s := q.Get(name); json.Valid([]byte(s)) { // read as the HTTP transport does
				args[name] = json.RawMessage(s)
			} else if s != "" {
				args[name], _ = json.Marshal(s)
			}
		}
	}
	if err := h.credentials(r, &base, args); err != nil {
		writeError(w, err)
		return
	}
	if h.shuttingDown() {
		writeError(w, errShuttingDown().WithStatus(http.StatusServiceUnavailable))
		return
	}
	hw := &hijackWriter{ResponseWriter: w, timeout: h.cfg.WS.WriteTimeout}
	conn, err := websocket.Accept(hw, r, wsAcceptOptions(h.cfg.WS)) // Origin checked above
	if err != nil {
		return // Accept has answered the client
	}
	conn.SetReadLimit(h.cfg.WS.MaxMessageBytes)
	wc := h.newWSConn(conn, hw.conn, plainMin(w, h.cfg.WS), r, v, base.Credentials)
	if !h.addConn(wc, r) {
		_ = conn.Close(websocket.StatusGoingAway, "server shutting down")
		return
	}
	// The connection is served by a goroutine of its own, and this one (whose stack grew deep
	// in the TLS handshake) returns to net/http, which is done with a hijacked connection:
	// an idle connection then holds a small stack (BENCHMARKS.md, BenchmarkWSIdleMemory).
	go wc.serve()
}

type wsConnKey struct{}

// CancelCall cancels the call with the given id running on the same WebSocket connection as
// the call ctx belongs to. It reports whether such a call was running; over HTTP it reports
// false. The built-in function cancel is made of it.
func CancelCall(ctx context.Context, id string) bool {
	wc, _ := ctx.Value(wsConnKey{}).(*wsConn)
	return wc != nil && wc.cancelCall(id)
}
