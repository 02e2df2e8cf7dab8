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

// BenchmarkToolsCall compares an echo call {a: 1, b: "x"} as an MCP tools/call in a session,
// as a stateless one (revision 2026-07-28), with the same call POSTed to fnapi's HTTP binding, both through the whole handler on one
// goroutine: ns/op is the CPU of one call.
func BenchmarkToolsCall(b *testing.B) {
	h := echoServer(b)
	post := func(path, body string, header http.Header) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.Header = header.Clone()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	hd := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	stateless := hd.Clone()
	stateless.Set("Mcp-Protocol-Version", "2026-07-28")
	stateless.Set("Mcp-Method", "tools/call")
	stateless.Set("Mcp-Name", "echo")
	w := post("/api/mcp", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`, hd)
	hd.Set("Mcp-Session-Id", w.Header().Get("Mcp-Session-Id"))
	hd.Set("Mcp-Protocol-Version", "2025-11-25")
	run := func(b *testing.B, path, body, want string, hd http.Header) {
		b.ReportAllocs()
		defer cpuPerOp(b)()
		for b.Loop() {
			if w := post(path, body, hd); w.Code != 200 || !strings.Contains(w.Body.String(), want) {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	}
	b.Run("mcp", func(b *testing.B) {
		run(b, "/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1,"b":"x"}}}`, `"structuredContent":{"a":1,"b":"x"}`, hd)
	})
	b.Run("mcp-stateless", func(b *testing.B) {
		run(b, "/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1,"b":"x"},`+meta+`}}`, `"structuredContent":{"a":1,"b":"x"}`, stateless)
	})
	b.Run("jsonrpc", func(b *testing.B) {
		run(b, "/api/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1,"b":"x"}}`, `"result":{"a":1,"b":"x"}`, hd)
	})
	b.Run("http", func(b *testing.B) {
		run(b, "/api/echo", `{"a":1,"b":"x"}`, `"result":{"a":1,"b":"x"}`, hd)
	})
}

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
