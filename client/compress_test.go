package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

// TestGzipStream: the client does not ask for an encoding itself, so net/http asks for gzip and
// decodes it: a stream comes gzipped, its first chunk is read while the function still runs,
// and stopping the iteration ends the call.
func TestGzipStream(t *testing.T) {
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
	}, registry.Requires(registry.Public))
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
	for chunk, err := range c.Stream(t.Context(), "tick", nil) {
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
