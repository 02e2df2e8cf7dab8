package transport

import (
	"context"
	"net/http"
	"sync"

	"github.com/coder/websocket"
	"github.com/fnapi/fnapi/apierr"
)

// wsConns is the set of a Handler's open WebSocket connections, for Shutdown: [http.Server]'s
// own Shutdown neither closes nor waits for hijacked connections.
type wsConns struct {
	mu      sync.Mutex
	open    map[*wsConn]struct{}
	servers map[*http.Server]struct{} // those whose shutdown is hooked
	closing bool
}

// add registers a new connection, and hooks the shutdown of the server it came through. It
// reports false once the handler is shutting down.
func (h *Handler) addConn(wc *wsConn, r *http.Request) bool {
	s := &h.conns
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	if s.open == nil {
		s.open = make(map[*wsConn]struct{})
		s.servers = make(map[*http.Server]struct{})
	}
	s.open[wc] = struct{}{}
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok {
		if _, hooked := s.servers[srv]; !hooked {
			s.servers[srv] = struct{}{}
			srv.RegisterOnShutdown(h.shutdownHook)
		}
	}
	return true
}

func (h *Handler) removeConn(wc *wsConn) {
	h.conns.mu.Lock()
	delete(h.conns.open, wc)
	h.conns.mu.Unlock()
}

// shutdownHook runs when an [http.Server] the handler serves WebSockets through shuts down.
func (h *Handler) shutdownHook() {
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.WS.ShutdownTimeout)
	defer cancel()
	_ = h.Shutdown(ctx)
}

// Shutdown ends the handler's WebSocket connections cleanly: new handshakes are refused (503),
// new calls on open connections answer CANCELLED, the calls running may finish until ctx is
// done and are then cancelled (they answer CANCELLED), and each connection then closes with
// status 1001 (going away). It returns once every connection has ended, or ctx.Err().
//
// http.Server.Shutdown does not close hijacked connections: the first WebSocket handshake
// through an [http.Server] registers this with its RegisterOnShutdown, with
// WSConfig.ShutdownTimeout as the time the calls running may take. Call Shutdown yourself to
// wait for the connections to end, or when serving otherwise. HTTP requests and streams are
// not affected: http.Server.Shutdown waits for them.
func (h *Handler) Shutdown(ctx context.Context) error {
	s := &h.conns
	s.mu.Lock()
	s.closing = true
	conns := make([]*wsConn, 0, len(s.open))
	for wc := range s.open {
		conns = append(conns, wc)
	}
	s.mu.Unlock()
	for _, wc := range conns {
		go wc.goAway(ctx)
	}
	for _, wc := range conns {
		select {
		case <-wc.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// errShuttingDown answers calls refused or cancelled by a shutdown.
func errShuttingDown() *apierr.Error {
	return apierr.New(apierr.Cancelled, "reason", "the server is shutting down")
}

// goAway refuses new calls, lets the running ones finish until ctx is done, cancels the rest and
// closes the connection with status 1001.
func (wc *wsConn) goAway(ctx context.Context) {
	wc.mu.Lock()
	wc.closing = true // under mu: a call dispatched from now on is refused, none is added to wg
	wc.mu.Unlock()
	idle := make(chan struct{})
	go func() {
		wc.wg.Wait()
		close(idle)
	}()
	select {
	case <-idle:
	case <-ctx.Done():
		wc.mu.Lock()
		for _, run := range wc.calls {
			run.shutdown.Store(true)
			run.cancel()
		}
		wc.mu.Unlock()
		<-idle
	case <-wc.done:
		return
	}
	wc.out.wait()
	_ = wc.conn.Close(websocket.StatusGoingAway, "server shutting down")
}

func (h *Handler) shuttingDown() bool {
	h.conns.mu.Lock()
	defer h.conns.mu.Unlock()
	return h.conns.closing
}
