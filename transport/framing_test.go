package transport

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

// lineFraming is a framing of the test's own: a message per line after "msg ".
type lineFraming struct{}

func (lineFraming) contentType() string { return "text/x-lines" }
func (lineFraming) writeMessage(w io.Writer, msg []byte) error {
	_, err := io.WriteString(w, "msg "+string(msg)+"\n")
	return err
}
func (lineFraming) keepalive() []byte { return nil }

// TestFramingSeam: the framing a request's Accept names writes the stream, and a new one is a
// value listed in framings. It changes framings, so it does not run in parallel.
func TestFramingSeam(t *testing.T) {
	old := framings
	framings = append([]framing{lineFraming{}}, framings...)
	t.Cleanup(func() { framings = old })

	reg := registry.New()
	reg.MustRegister("count", func(in struct {
		N int `json:"n"`
	}, s *stream.Sender[int]) error {
		for i := range in.N {
			if err := s.Send(i); err != nil {
				return err
			}
		}
		return nil
	}, registry.Requires(decl.Public))
	h, err := New(reg, Config{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	tests := []struct{ accept, contentType, body string }{
		{"", "application/x-ndjson", `{"type":"chunk","chunk":0}` + "\n" + `{"type":"end"}` + "\n"},
		{"text/event-stream", "text/event-stream", `data: {"type":"chunk","chunk":0}` + "\n\n" + `data: {"type":"end"}` + "\n\n"},
		{"text/x-lines", "text/x-lines", `msg {"type":"chunk","chunk":0}` + "\n" + `msg {"type":"end"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.contentType, func(t *testing.T) {
			req, _ := http.NewRequest("GET", srv.URL+"/stream/count?n=1", nil)
			if tt.accept != "" {
				req.Header.Set("Accept", tt.accept)
			}
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			if ct := res.Header.Get("Content-Type"); ct != tt.contentType || string(b) != tt.body {
				t.Errorf("Accept %q: %s %q, want %s %q", tt.accept, ct, b, tt.contentType, tt.body)
			}
		})
	}
}

// TestFramingsMatchEncodings: every encoding package stream lists (and the OpenAPI document
// advertises) has a framing that a request naming it in Accept gets, and every framing is
// listed there.
func TestFramingsMatchEncodings(t *testing.T) {
	t.Parallel()
	listed := map[string]bool{}
	for _, e := range stream.Encodings() {
		listed[e.MediaType] = true
		r := httptest.NewRequest("GET", "/stream/count", nil)
		r.Header.Set("Accept", e.MediaType)
		if got := framingFor(r).contentType(); got != e.MediaType {
			t.Errorf("Accept: %s gets a framing of %s; want a framing of its own in framings", e.MediaType, got)
		}
	}
	for _, f := range append([]framing{ndjsonFraming{}}, framings...) {
		if !listed[f.contentType()] {
			t.Errorf("framing of %s is not listed in stream.Encodings", f.contentType())
		}
	}
}
