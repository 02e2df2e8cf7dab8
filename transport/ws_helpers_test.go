package transport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/fnapi/fnapi/transport"
)

// The WebSocket tests' client side: dial, send, read, and the server's metrics.

// dialWS opens a WebSocket to path on srv over TLS, closed at the end of the test.
func dialWS(t testing.TB, srv *httptest.Server, path string, header http.Header) *websocket.Conn {
	t.Helper()
	conn, err := tryDialWS(srv, path, header)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(-1)
	t.Cleanup(func() { _ = conn.CloseNow() })
	return conn
}

func tryDialWS(srv *httptest.Server, path string, header http.Header) (*websocket.Conn, error) {
	u := "wss" + strings.TrimPrefix(srv.URL, "https") + path
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, res, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: srv.Client(), HTTPHeader: header})
	if err != nil {
		if res != nil {
			return nil, fmt.Errorf("dial %s: status %d: %w", path, res.StatusCode, err)
		}
		return nil, err
	}
	return conn, nil
}

func sendMsg(t testing.TB, conn *websocket.Conn, msg string) {
	t.Helper()
	if err := conn.Write(context.Background(), websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

func readMsg(t testing.TB, conn *websocket.Conn) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, b, err := conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("message %q: %v", b, err)
	}
	return m
}

// call sends one call and returns its answer, skipping nothing: use it on a quiet connection.
func call(t testing.TB, conn *websocket.Conn, msg string) map[string]any {
	t.Helper()
	sendMsg(t, conn, msg)
	return readMsg(t, conn)
}

func atoi(t testing.TB, s string) int {
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func readAll(conn *websocket.Conn) (int, []byte, error) {
	n := 0
	for {
		_, b, err := conn.Read(context.Background())
		if err != nil {
			return n, b, err
		}
		n++
	}
}

func metricsText(m *transport.Metrics) string {
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}
