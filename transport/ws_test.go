package transport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/fnapi/fnapi/internal/testutil"
	"github.com/fnapi/fnapi/transport"
)

func TestWSCancel(t *testing.T) {
	t.Parallel()
	srv, api := newStreamServer(t, transport.Config{})
	conn := dialWS(t, srv, "/api/ws", nil)
	sendMsg(t, conn, `{"id":"w","call":"wait","args":{"tag":"w"}}`)
	<-api.started
	sendMsg(t, conn, `{"id":"c","call":"cancel","args":{"id":"w"}}`)
	if got := <-api.stopped; got != "w" {
		t.Fatalf("stopped %q", got)
	}
	seen := map[string]any{}
	for range 2 {
		m := readMsg(t, conn)
		seen[m["id"].(string)] = m
	}
	if m := seen["w"].(map[string]any); m["error"] != "CANCELLED" {
		t.Errorf("cancelled call answered %v", m)
	}
	if m := seen["c"].(map[string]any); m["result"] != true {
		t.Errorf("cancel answered %v", m)
	}
}

func TestWSCloseCancelsCalls(t *testing.T) {
	t.Parallel()
	srv, api := newStreamServer(t, transport.Config{})
	conn := dialWS(t, srv, "/api/ws", nil)
	sendMsg(t, conn, `{"id":1,"call":"wait","args":{"tag":"a"}}`)
	sendMsg(t, conn, `{"id":2,"stream":"wait","args":{"tag":"b"}}`)
	<-api.started
	<-api.started
	_ = conn.Close(websocket.StatusNormalClosure, "")
	got := map[string]bool{<-api.stopped: true, <-api.stopped: true}
	if !got["a"] || !got["b"] {
		t.Fatalf("stopped %v, want a and b", got)
	}
}

// TestWSConcurrent shows that a call does not wait for another: echo answers while wait runs.
func TestWSConcurrent(t *testing.T) {
	t.Parallel()
	srv, api := newStreamServer(t, transport.Config{})
	conn := dialWS(t, srv, "/api/ws", nil)
	sendMsg(t, conn, `{"id":1,"call":"wait","args":{"tag":"a"}}`)
	<-api.started
	if m := call(t, conn, `{"id":2,"call":"echo","args":{"x":1}}`); m["id"] != "2" {
		t.Fatalf("answer %v, want the echo's", m)
	}
	// Two long streams at once: every chunk arrives, each stream's in order.
	const n = 2000
	sendMsg(t, conn, fmt.Sprintf(`{"id":"s1","stream":"count","args":{"n":%d}}`, n))
	sendMsg(t, conn, fmt.Sprintf(`{"id":"s2","stream":"count","args":{"n":%d}}`, n))
	next := map[string]float64{"s1": 0, "s2": 0}
	for ends := 0; ends < 2; {
		m := readMsg(t, conn)
		id := m["id"].(string)
		switch m["type"] {
		case "chunk":
			if m["chunk"] != next[id] {
				t.Fatalf("%s: chunk %v, want %v", id, m["chunk"], next[id])
			}
			next[id]++
		case "end":
			ends++
		default:
			t.Fatalf("message %v", m)
		}
	}
	if next["s1"] != n || next["s2"] != n {
		t.Fatalf("chunks %v, want %d each", next, n)
	}
}

// TestWSBackPressure shows that past MaxInFlight calls the server reads no more: the third
// call starts only once one of the first two has finished.
func TestWSBackPressure(t *testing.T) {
	t.Parallel()
	srv, api := newStreamServer(t, transport.Config{CallTimeout: 100 * time.Millisecond, WS: transport.WSConfig{MaxInFlight: 2}})
	conn := dialWS(t, srv, "/api/ws", nil)
	for _, tag := range []string{"a", "b", "c"} {
		sendMsg(t, conn, fmt.Sprintf(`{"id":%q,"call":"wait","args":{"tag":%q}}`, tag, tag))
	}
	for range 2 {
		if tag := <-api.started; tag == "c" {
			t.Fatal("the third call started while two ran")
		}
	}
	// The third call waits for a slot; its deadline counts from its arrival, so it may time
	// out before it starts.
	for range 3 {
		if m := readMsg(t, conn); m["error"] != "TIMEOUT" {
			t.Fatalf("answer %v, want TIMEOUT", m)
		}
	}
	select {
	case <-api.started:
		if len(api.stopped) == 0 {
			t.Fatal("the third call started before either of the first two finished")
		}
	default:
	}
}

// TestWSBackPressureKeepsReading fills a connection's slots with streams that never end: the
// connection still reads a cancel, refuses calls past the waiting ones rather than stop
// reading, and once the client is gone, every call ends and the server shuts down at once.
func TestWSBackPressureKeepsReading(t *testing.T) {
	t.Parallel()
	srv, api := newStreamServer(t, transport.Config{WS: transport.WSConfig{MaxInFlight: 2}})
	conn := dialWS(t, srv, "/api/ws", nil)
	for _, tag := range []string{"a", "b"} {
		sendMsg(t, conn, fmt.Sprintf(`{"id":%q,"stream":"forever","args":{"tag":%q}}`, tag, tag))
		if m := readMsg(t, conn); m["chunk"] != tag {
			t.Fatalf("stream %s: %v", tag, m)
		}
	}
	for _, tag := range []string{"c", "d"} { // wait for a slot
		sendMsg(t, conn, fmt.Sprintf(`{"id":%q,"stream":"forever","args":{"tag":%q}}`, tag, tag))
	}
	if m := call(t, conn, `{"id":"e","stream":"forever","args":{"tag":"e"}}`); m["id"] != "e" || m["error"] != "RATE-LIMITED" {
		t.Fatalf("a call past the waiting ones: %v", m)
	}
	sendMsg(t, conn, `{"id":"x","call":"cancel","args":{"id":"a"}}`)
	got := map[string]map[string]any{}
	for len(got) < 3 { // cancel's result, a's end, the first chunk of c or d, in any order
		m := readMsg(t, conn)
		got[m["id"].(string)] = m
	}
	third := "c"
	if got["d"] != nil {
		third = "d"
	}
	if got["x"]["result"] != true || got["a"]["error"] != "CANCELLED" || got[third]["chunk"] != third {
		t.Fatalf("after cancel: %v", got)
	}
	if err := conn.CloseNow(); err != nil {
		t.Fatal(err)
	}
	stopped := map[string]bool{}
	for range 3 {
		stopped[<-api.stopped] = true
	}
	if !stopped["a"] || !stopped["b"] || !stopped[third] {
		t.Fatalf("stopped %v, want a, b and %s", stopped, third)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Config.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown held up: %v", err)
	}
}

func TestWSHandshakeTokens(t *testing.T) {
	t.Parallel()
	srv, _ := newStreamServer(t, transport.Config{})
	tests := []struct {
		name   string
		path   string
		header http.Header
		want   any
	}{
		{"none", "/api/ws", nil, nil},
		{"key header", "/api/ws", http.Header{"Svc-Authorization": {"secret:k"}}, "key"},
		{"session cookie", "/api/ws", http.Header{"Cookie": {"Svc-Session=session:s"}}, "session"},
		{"key in the URL", "/api/ws?_key=secret:k", nil, "key"},
		{"session in the URL", "/api/1.0/ws?_session=session:s", nil, "session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn := dialWS(t, srv, tt.path, tt.header)
			for i := range 2 { // the token applies to every call
				m := call(t, conn, fmt.Sprintf(`{"id":%d,"call":"whoami","args":{}}`, i))
				if tt.want == nil {
					if m["error"] != "API-AUTHENTICATION-NEEDED" {
						t.Fatalf("anonymous whoami answered %v", m)
					}
					continue
				}
				if m["result"] != tt.want {
					t.Fatalf("whoami answered %v, want %v", m, tt.want)
				}
			}
		})
	}
}

func TestWSOrigin(t *testing.T) {
	t.Parallel()
	srv, _ := newStreamServer(t, transport.Config{AllowedOrigins: []string{"https://app.example"}})
	host := strings.TrimPrefix(srv.URL, "https://")
	tests := []struct {
		origin string
		ok     bool
	}{
		{"", true},
		{"https://" + host, true},
		{"http://" + host, false}, // another scheme is another origin
		{"https://app.example", true},
		{"https://evil.example", false},
		{"null", false},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			h := http.Header{}
			if tt.origin != "" {
				h.Set("Origin", tt.origin)
			}
			conn, err := tryDialWS(srv, "/api/ws", h)
			if tt.ok != (err == nil) {
				t.Fatalf("dial with Origin %q: %v", tt.origin, err)
			}
			if conn != nil {
				conn.CloseNow()
			}
			if tt.ok {
				return
			}
			// The refusal is an error message of its own, not a request to log in.
			req, _ := http.NewRequest("GET", srv.URL+"/api/ws", nil)
			req.Header.Set("Origin", tt.origin)
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var msg map[string]any
			if err := json.NewDecoder(res.Body).Decode(&msg); err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != 403 || msg["error"] != "ORIGIN-NOT-ALLOWED" || msg["origin"] != tt.origin {
				t.Errorf("refused handshake = %d %v, want 403 ORIGIN-NOT-ALLOWED with origin %q", res.StatusCode, msg, tt.origin)
			}
		})
	}
}

// TestWSBurst sends 10,000 calls without waiting: every one is answered, with its id.
func TestWSBurst(t *testing.T) {
	t.Parallel()
	srv, _ := newStreamServer(t, transport.Config{})
	conn := dialWS(t, srv, "/api/ws", nil)
	const n = 10000
	errc := make(chan error, 1)
	go func() {
		for i := range n {
			msg := fmt.Sprintf(`{"id":%d,"call":"add","args":{"a":%d,"b":1}}`, i, i)
			if err := conn.Write(context.Background(), websocket.MessageText, []byte(msg)); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	seen := make(map[string]bool, n)
	for range n {
		m := readMsg(t, conn)
		id := m["id"].(string)
		if want := fmt.Sprint(atoi(t, id) + 1); fmt.Sprint(m["result"]) != want || seen[id] {
			t.Fatalf("answer %v", m)
		}
		seen[id] = true
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// TestWSTooLarge sends a 64 MiB message: the server closes that connection with 1009, and
// other connections go on.
func TestWSTooLarge(t *testing.T) {
	t.Parallel()
	srv, _ := newStreamServer(t, transport.Config{})
	other := dialWS(t, srv, "/api/ws", nil)
	conn := dialWS(t, srv, "/api/ws", nil)
	big := `{"id":1,"call":"echo","args":{"x":"` + strings.Repeat("a", 64<<20) + `"}}`
	go func() { _ = conn.Write(context.Background(), websocket.MessageText, []byte(big)) }() // fails once the server closes
	_, _, err := conn.Read(context.Background())
	if got := websocket.CloseStatus(err); got != websocket.StatusMessageTooBig {
		t.Fatalf("read after a 64 MiB message: %v (status %v), want close 1009", err, got)
	}
	if m := call(t, other, `{"id":1,"call":"echo","args":{"ok":true}}`); m["result"] == nil {
		t.Fatalf("other connection answered %v", m)
	}
}

// TestWSClientNeverReads streams to a client that reads nothing: the server's memory stays
// bounded, and past the write timeout it disconnects the client and ends the stream. It reads
// the heap's size, so it does not run in parallel with other tests.
func TestWSClientNeverReads(t *testing.T) {
	m := &transport.Metrics{}
	srv, _ := newStreamServer(t, transport.Config{Metrics: m, WS: transport.WSConfig{WriteTimeout: 300 * time.Millisecond}})
	conn := dialWS(t, srv, "/api/ws", nil)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sendMsg(t, conn, `{"id":1,"stream":"count","args":{"n":1000000000,"size":1000,"fail":"X"}}`)
	testutil.Eventually(t, "the server to disconnect the client", func() bool {
		var now runtime.MemStats
		runtime.ReadMemStats(&now)
		if grown := int64(now.HeapInuse) - int64(before.HeapInuse); grown > 64<<20 {
			t.Fatalf("heap grew by %d MiB while the client did not read", grown>>20)
		}
		return strings.Contains(metricsText(m), "fnapi_websocket_connections 0")
	})
	_, _, err := readAll(conn)
	if err == nil {
		t.Fatal("the connection is still open")
	}
}

func TestWSPings(t *testing.T) {
	t.Parallel()
	m := &transport.Metrics{}
	srv, _ := newStreamServer(t, transport.Config{Metrics: m, WS: transport.WSConfig{PingInterval: 20 * time.Millisecond, WriteTimeout: 200 * time.Millisecond}})
	t.Run("a reading client stays connected", func(t *testing.T) {
		conn := dialWS(t, srv, "/api/ws", nil)
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		_, _, err := conn.Read(ctx) // answers pings while it waits
		// The read must last until this test's deadline, not end with the server closing the
		// connection. When the deadline closes the connection as a ping arrives, the library
		// reports the ping's failure rather than the deadline: that still ends at the deadline.
		if ctx.Err() == nil || websocket.CloseStatus(err) != -1 {
			t.Fatalf("idle read ended before its deadline: %v", err)
		}
	})
	t.Run("a dead peer is disconnected", func(t *testing.T) {
		_ = dialWS(t, srv, "/api/ws", nil) // never reads, so never answers a ping
		testutil.Eventually(t, "the dead peer's connection to close", func() bool {
			return strings.Contains(metricsText(m), "fnapi_websocket_connections 0")
		})
	})
}

func TestWSIdleTimeout(t *testing.T) {
	t.Parallel()
	srv, _ := newStreamServer(t, transport.Config{WS: transport.WSConfig{IdleTimeout: 50 * time.Millisecond}})
	conn := dialWS(t, srv, "/api/ws", nil)
	_, _, err := conn.Read(context.Background())
	if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("idle connection: %v, want a normal closure", err)
	}
}

// TestWSReuseIDAfterAnswer reuses one id for call after call, each sent as soon as the
// previous answer arrived: the id is free again once its answer (or a stream's end) is read.
func TestWSReuseIDAfterAnswer(t *testing.T) {
	t.Parallel()
	srv, _ := newStreamServer(t, transport.Config{})
	conn := dialWS(t, srv, "/api/ws", nil)
	tests := []struct {
		name, msg, last string
	}{
		{"call", `{"id":"same","call":"add","args":{"a":1,"b":2}}`, "result"},
		{"stream", `{"id":"same","stream":"count","args":{"n":1}}`, "end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range 500 {
				sendMsg(t, conn, tt.msg)
				for {
					m := readMsg(t, conn)
					if m["type"] == "error" {
						t.Fatalf("call %d: %v", i, m)
					}
					if m["type"] == tt.last {
						break
					}
				}
			}
		})
	}
}
