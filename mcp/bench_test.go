package mcp_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/coder/websocket"
	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/internal/testutil"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
)

// echoServer serves the built-in functions with MCP and JSON-RPC on, mounted at /api.
func echoServer(b *testing.B) http.Handler {
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	h, err := fnapi.New(reg, fnapi.WithMCP(mcp.Options{}), fnapi.WithJSONRPC(jsonrpc.Options{}))
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", h))
	return mux
}

// toolsCall is one of the calls BenchmarkToolsCall and BenchmarkServedToolsCall compare: its
// path, body and headers, and a part of the answer it must hold.
type toolsCall struct {
	name, path, body, want string
	header                 http.Header
}

// toolsCalls returns the echo call {a: 1, b: "x"} as an MCP tools/call in a session (opened
// here on h), as a stateless one (revision 2026-07-28), as a JSON-RPC call, and POSTed to
// fnapi's HTTP binding.
func toolsCalls(b *testing.B, h http.Handler) []toolsCall {
	hd := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	stateless := hd.Clone()
	stateless.Set("Mcp-Protocol-Version", "2026-07-28")
	stateless.Set("Mcp-Method", "tools/call")
	stateless.Set("Mcp-Name", "echo")
	req := httptest.NewRequest("POST", "/api/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
	req.Header = hd.Clone()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != 200 {
		b.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	hd.Set("Mcp-Session-Id", w.Header().Get("Mcp-Session-Id"))
	hd.Set("Mcp-Protocol-Version", "2025-11-25")
	return []toolsCall{
		{"mcp", "/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1,"b":"x"}}}`, `"structuredContent":{"a":1,"b":"x"}`, hd},
		{"mcp-stateless", "/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1,"b":"x"},` + meta + `}}`, `"structuredContent":{"a":1,"b":"x"}`, stateless},
		{"jsonrpc", "/api/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1,"b":"x"}}`, `"result":{"a":1,"b":"x"}`, hd},
		{"http", "/api/echo", `{"a":1,"b":"x"}`, `"result":{"a":1,"b":"x"}`, hd},
	}
}

// BenchmarkToolsCall compares the toolsCalls through the whole handler on one goroutine:
// cpu-ns/op is the CPU of one call, the test's request and recorder included.
func BenchmarkToolsCall(b *testing.B) {
	h := echoServer(b)
	for _, c := range toolsCalls(b, h) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			defer cpuPerOp(b)()
			for b.Loop() {
				req := httptest.NewRequest("POST", c.path, strings.NewReader(c.body))
				req.Header = c.header.Clone()
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != 200 || !strings.Contains(w.Body.String(), c.want) {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}

// BenchmarkServedToolsCall compares the toolsCalls as a client meets them: served over TLS
// (net/http, HTTP/1.1, keep-alive) to a client in a child process, so that cpu-ns/op is the
// server's CPU a call, not the client's.
func BenchmarkServedToolsCall(b *testing.B) {
	h := echoServer(b)
	srv := httptest.NewTLSServer(h)
	defer srv.Close()
	client := testutil.StartServed(b, "TestServedClient", srv)
	calls := toolsCalls(b, h)
	served := func(c toolsCall) testutil.ServedCall {
		return testutil.ServedCall{Method: "POST", Path: c.path, Body: c.body, Header: c.header, Status: 200}
	}
	client.Calls(b, 100, served(calls[len(calls)-1])) // the connection and its handshake
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			defer cpuPerOp(b)()
			client.Calls(b, b.N, served(c)) // the child makes all b.N calls
		})
	}
}

// TestServedClient is the client process of BenchmarkServedToolsCall; it does nothing otherwise.
func TestServedClient(t *testing.T) { testutil.ServedClient(t) }

// BenchmarkBatch100 compares 100 echo calls as one JSON-RPC batch POSTed over TLS with the same
// 100 calls sent at once over one WebSocket (and their 100 answers read), client and server in
// this process: ns/op is 100 calls, both sides.
func BenchmarkBatch100(b *testing.B) {
	srv := httptest.NewTLSServer(echoServer(b))
	defer srv.Close()
	const n = 100
	b.Run("jsonrpc-batch", func(b *testing.B) {
		var body bytes.Buffer
		body.WriteByte('[')
		for i := range n {
			if i > 0 {
				body.WriteByte(',')
			}
			fmt.Fprintf(&body, `{"jsonrpc":"2.0","id":%d,"method":"echo","params":{"a":1,"b":"x"}}`, i)
		}
		body.WriteByte(']')
		c := srv.Client()
		b.ReportAllocs()
		defer cpuPerOp(b)()
		for b.Loop() {
			res, err := c.Post(srv.URL+"/api/jsonrpc", "application/json", bytes.NewReader(body.Bytes()))
			if err != nil {
				b.Fatal(err)
			}
			out, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if bytes.Count(out, []byte(`"result"`)) != n {
				b.Fatalf("%s", out)
			}
		}
	})
	b.Run("ws-100", func(b *testing.B) {
		url := "wss" + strings.TrimPrefix(srv.URL, "https") + "/api/ws"
		conn, _, err := websocket.Dial(context.Background(), url, &websocket.DialOptions{HTTPClient: srv.Client()})
		if err != nil {
			b.Fatal(err)
		}
		defer conn.CloseNow()
		ctx := context.Background()
		msg := make([]byte, 0, 64)
		b.ReportAllocs()
		defer cpuPerOp(b)()
		for b.Loop() {
			errc := make(chan error, 1)
			go func() {
				for i := range n {
					msg = append(strconv.AppendInt(append(msg[:0], `{"id":`...), int64(i), 10), `,"call":"echo","args":{"a":1,"b":"x"}}`...)
					if err := conn.Write(ctx, websocket.MessageText, msg); err != nil {
						errc <- err
						return
					}
				}
				errc <- nil
			}()
			for range n {
				_, answer, err := conn.Read(ctx)
				if err != nil || !bytes.Contains(answer, []byte(`"type":"result"`)) {
					b.Fatalf("%v %s", err, answer)
				}
			}
			if err := <-errc; err != nil {
				b.Fatal(err)
			}
		}
	})
}

// cpuPerOp reports the process's CPU time (user and system, every goroutine: client, server,
// garbage collector) per operation as cpu-ns/op, from the call until the returned function
// runs. On a busy machine it is steadier than ns/op, which counts waiting for a core.
func cpuPerOp(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
