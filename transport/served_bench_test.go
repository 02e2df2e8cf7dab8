package transport_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/fnapi/fnapi/internal/testutil"
)

// BenchmarkServedGET is BenchmarkReadOnlyGET as a client meets it: the same read-only GET (1
// item, 112 B) answered by a TLS server (net/http, HTTP/1.1, keep-alive) to a client in a child
// process, so that cpu-ns/op is the server's CPU a call (its TLS, its reads and writes of
// request and headers, the handler), not the client's. Untagged, tagged (ETag and
// Cache-Control added) and not-modified (If-None-Match holds the tag: 304).
func BenchmarkServedGET(b *testing.B) {
	h, tag := readOnlyHandler(b, 1)
	srv := httptest.NewTLSServer(h)
	defer srv.Close()

	client := testutil.StartServed(b, "TestServedClient", srv)
	get := func(path, inm string, status int) testutil.ServedCall {
		c := testutil.ServedCall{Method: "GET", Path: path, Status: status}
		if inm != "" {
			c.Header = http.Header{"If-None-Match": {inm}}
		}
		return c
	}
	client.Calls(b, 100, get("/untagged", "", 200)) // the connection and its handshake
	run := func(b *testing.B, c testutil.ServedCall) {
		defer cpuPerOp(b)()
		client.Calls(b, b.N, c) // the child makes all b.N calls
	}
	b.Run("untagged", func(b *testing.B) { run(b, get("/untagged", "", 200)) })
	b.Run("tagged", func(b *testing.B) { run(b, get("/tagged", "", 200)) })
	b.Run("not-modified", func(b *testing.B) { run(b, get("/tagged", tag, 304)) })
}

// TestServedClient is the client process of the Served benchmarks; it does nothing otherwise.
func TestServedClient(t *testing.T) { testutil.ServedClient(t) }
