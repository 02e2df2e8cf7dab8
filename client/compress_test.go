package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

// TestGzipStream: the client does not ask for an encoding itself, so net/http asks for gzip and
// decodes it: a stream comes gzipped, its first chunk is read while the function still runs,
// and stopping the iteration ends the call.
func TestGzipStream(t *testing.T) {
	t.Parallel()
	started, stopped := make(chan struct{}), make(chan struct{})
	reg := registry.New()
	reg.MustRegister("tick", func(ctx context.Context, s *stream.Sender[string]) error {
		if err := s.Send("first"); err != nil {
			return err
		}
		close(started)
		<-ctx.Done()
		close(stopped)
		return nil
	}, registry.Requires(decl.Public))
	h, err := fnapi.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	encodings := make(chan string, 1)
	srv := httptest.NewTLSServer(http.StripPrefix("/api", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		encodings <- w.Header().Get("Content-Encoding")
	})))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second) // a chunk held back fails the read
	defer cancel()
	for chunk, err := range c.Stream(ctx, "tick", nil) {
		if err != nil || string(chunk) != `"first"` {
			t.Fatalf("chunk %s, %v", chunk, err)
		}
		<-started
		break
	}
	<-stopped
	if enc := <-encodings; enc != "gzip" {
		t.Fatalf("the stream went with Content-Encoding %q, want gzip", enc)
	}
}

// TestWSCompressed: a WSConn offers permessage-deflate, and the server's compressed answers
// arrive whole.
func TestWSCompressed(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	reg.MustRegister("long", func() string { return strings.Repeat("traffic ", 1000) }, registry.Requires(decl.Public))
	h, err := fnapi.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	extensions := make(chan string, 1)
	srv := httptest.NewTLSServer(http.StripPrefix("/api", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		extensions <- r.Header.Get("Sec-WebSocket-Extensions")
		h.ServeHTTP(w, r)
	})))
	t.Cleanup(srv.Close)
	ws, err := client.DialWS(t.Context(), "wss"+strings.TrimPrefix(srv.URL, "https")+"/api/ws", client.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if ext := <-extensions; !strings.HasPrefix(ext, "permessage-deflate") {
		t.Fatalf("the client offered %q", ext)
	}
	var s string
	if err := ws.Call(t.Context(), "long", nil, &s); err != nil || s != strings.Repeat("traffic ", 1000) {
		t.Fatalf("answer of %d bytes, %v", len(s), err)
	}
}
