package transport_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/apitest"
	"github.com/fnapi/fnapi/internal/testutil"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// expectClose reads from conn until it closes, and checks it closed with status 1001.
func expectClose(t *testing.T, conn *websocket.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, msg, err := conn.Read(ctx)
	if err == nil {
		t.Fatalf("unexpected message %s before the close", msg)
	}
	if got := websocket.CloseStatus(err); got != websocket.StatusGoingAway {
		t.Fatalf("closed with %v (%v), want 1001 going away", got, err)
	}
}

// TestWSServerShutdown shuts the http.Server down: its WebSocket connections, which
// http.Server.Shutdown does not close by itself, end with 1001 after their calls.
func TestWSServerShutdown(t *testing.T) {
	t.Parallel()
	t.Run("idle connection", func(t *testing.T) {
		srv, _ := newStreamServer(t, transport.Config{})
		conn := dialWS(t, srv, "/api/ws", nil)
		if m := call(t, conn, `{"id":1,"call":"add","args":{"a":1,"b":2}}`); m["result"] != 3.0 {
			t.Fatalf("answer %v", m)
		}
		if err := srv.Config.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		expectClose(t, conn)
	})
	t.Run("running call cancelled after the shutdown timeout", func(t *testing.T) {
		srv, api := newStreamServer(t, transport.Config{WS: transport.WSConfig{ShutdownTimeout: 50 * time.Millisecond}})
		conn := dialWS(t, srv, "/api/ws", nil)
		sendMsg(t, conn, `{"id":"w","call":"wait","args":{"tag":"w"}}`)
		<-api.started
		if err := srv.Config.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		m := readMsg(t, conn)
		if m["id"] != "w" || m["error"] != "CANCELLED" || m["reason"] != "the server is shutting down" {
			t.Fatalf("answer %v, want CANCELLED for w", m)
		}
		<-api.stopped
		expectClose(t, conn)
	})
}

// TestHandlerShutdown calls Handler.Shutdown directly: it waits for the running call, refuses
// new calls and new connections, and returns once the connections have ended.
func TestHandlerShutdown(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	reg.MustRegister("slow", func(ctx context.Context) string {
		started <- struct{}{}
		<-release
		return "done"
	}, registry.Requires(decl.Public))
	h, err := transport.New(reg, transport.Config{})
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.Serve(t, h)
	conn := dialWS(t, srv, "/api/ws", nil)
	sendMsg(t, conn, `{"id":"s","call":"slow","args":{}}`)
	<-started

	stopped := make(chan error, 1)
	go func() { stopped <- h.Shutdown(context.Background()) }()
	// New calls are refused while the running one may finish.
	var refused map[string]any
	testutil.Eventually(t, "new calls to be refused", func() bool {
		refused = call(t, conn, `{"id":"n","call":"echo","args":{}}`)
		return refused["error"] == "CANCELLED"
	})
	if refused["id"] != "n" || refused["reason"] != "the server is shutting down" {
		t.Fatalf("new call answered %v", refused)
	}
	if _, err := tryDialWS(srv, "/api/ws", nil); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("new connection: %v, want status 503", err)
	}
	close(release)
	if m := readMsg(t, conn); m["id"] != "s" || m["result"] != "done" {
		t.Fatalf("running call answered %v", m)
	}
	expectClose(t, conn)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}
