package transport_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// openGzipStream starts a stream asking for gzip itself (so that the client hands the body over
// as sent) and returns the response, checked to be gzipped, and a reader of its decoded body.
func openGzipStream(t *testing.T, ctx context.Context, client *http.Client, url string, sse bool) (*http.Response, *bufio.Reader) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	if sse {
		req.Header.Set("Accept", "text/event-stream")
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("Content-Encoding %q, Vary %q: want a gzipped stream", res.Header.Get("Content-Encoding"), res.Header.Get("Vary"))
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, bufio.NewReader(zr)
}

// TestGzipStream: a stream to a client that accepts gzip is gzipped, and decodes to the same
// messages as the plain stream, in both framings: small streams, a failing one, and one larger
// than a compressed segment.
func TestGzipStream(t *testing.T) {
	t.Parallel()
	srv, _ := newStreamServer(t, transport.Config{})
	for _, path := range []string{"/api/stream/count?n=3", "/api/stream/count?n=2&fail=BROKEN", "/api/stream/count?n=300&size=1000"} {
		for _, sse := range []bool{false, true} {
			_, _, want := readStream(t, srv.Client(), srv.URL+path, sse) // decoded by net/http
			_, body := openGzipStream(t, t.Context(), srv.Client(), srv.URL+path, sse)
			b, err := io.ReadAll(body) // to the end: the gzip trailer's checksum and length are checked
			if err != nil {
				t.Fatalf("%s (SSE %v): %v", path, sse, err)
			}
			var got []string
			for _, line := range strings.Split(string(b), "\n") {
				if line = strings.TrimPrefix(line, "data: "); line != "" {
					got = append(got, line)
				}
			}
			if !reflect.DeepEqual(got, want) || len(want) < 2 {
				t.Errorf("%s (SSE %v): %d messages gzipped, %d plain", path, sse, len(got), len(want))
			}
		}
	}
}

// TestGzipStreamLive: each message of a gzipped stream arrives as it is produced (the first one
// is read while the function still runs), and the client going away still ends the call.
func TestGzipStreamLive(t *testing.T) {
	t.Parallel()
	srv, api := newStreamServer(t, transport.Config{})
	for _, sse := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second) // a message held back fails the read
		_, body := openGzipStream(t, ctx, srv.Client(), srv.URL+"/api/stream/forever?tag=live", sse)
		line, err := body.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"type":"chunk","chunk":"live"}`; strings.TrimPrefix(strings.TrimSpace(line), "data: ") != want {
			t.Fatalf("first line %q, want %s", line, want)
		}
		if got := <-api.started; got != "live" {
			t.Fatalf("started %q", got)
		}
		cancel()
		if got := <-api.stopped; got != "live" {
			t.Fatalf("stopped %q", got)
		}
	}
}

// TestGzipSSEKeepalive: the keepalive of an idle gzipped event stream is flushed through the
// compression.
func TestGzipSSEKeepalive(t *testing.T) {
	t.Parallel()
	srv, api := newStreamServer(t, transport.Config{WS: transport.WSConfig{PingInterval: 20 * time.Millisecond}})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, body := openGzipStream(t, ctx, srv.Client(), srv.URL+"/api/stream/wait?tag=k", true)
	<-api.started
	if line, err := body.ReadString('\n'); err != nil || line != ": keepalive\n" {
		t.Fatalf("first line of an idle SSE stream %q (%v), want a keepalive comment", line, err)
	}
	cancel()
	<-api.stopped
}

// TestGzipStreamOff: no gzip with compression turned off, for a client that does not accept it,
// nor for a stream that fails before it starts (a few bytes).
func TestGzipStreamOff(t *testing.T) {
	t.Parallel()
	on, _ := newStreamServer(t, transport.Config{})
	off, _ := newStreamServer(t, transport.Config{CompressMinBytes: -1})
	tests := []struct {
		name, url, accept string
	}{
		{"compression off", off.URL + "/api/stream/count?n=3", "gzip"},
		{"gzip not accepted", on.URL + "/api/stream/count?n=3", "identity"},
		{"unknown function", on.URL + "/api/stream/nope", "gzip"},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest("GET", tt.url, nil)
		req.Header.Set("Accept-Encoding", tt.accept)
		res, err := on.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.Header.Get("Content-Encoding") != "" || !strings.HasPrefix(string(b), `{"type":`) {
			t.Errorf("%s: Content-Encoding %q, body %.40q", tt.name, res.Header.Get("Content-Encoding"), b)
		}
	}
}

// TestGzipNever: the stream of a NoStore function is never gzipped (BREACH), and with
// compression turned off neither is a large JSON answer.
func TestGzipNever(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	text := func(in struct {
		N int `json:"n"`
	}) string {
		return strings.Repeat("secret ", in.N)
	}
	reg.MustRegister("secret-text", text, registry.Requires(decl.Public), registry.NoStore())
	reg.MustRegister("text", text, registry.Requires(decl.Public))
	for _, tt := range []struct {
		name, path string
		cfg        transport.Config
	}{
		{"NoStore stream", "/stream/secret-text?n=1000", transport.Config{}},
		{"answer, compression off", "/text?n=1000", transport.Config{CompressMinBytes: -1}},
	} {
		h, err := transport.New(reg, tt.cfg)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		req, _ := http.NewRequest("GET", srv.URL+tt.path, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		srv.Close()
		if res.Header.Get("Content-Encoding") != "" || !strings.Contains(string(b), strings.Repeat("secret ", 1000)) {
			t.Errorf("%s: Content-Encoding %q, body %.40q", tt.name, res.Header.Get("Content-Encoding"), b)
		}
	}
}
