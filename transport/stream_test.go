package transport_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/transport"
)

// readStream calls path and returns the status, the content type and the messages of the
// stream, in NDJSON or (sse) Server-Sent Events framing, checking the framing as it goes.
func readStream(t *testing.T, client *http.Client, url string, sse bool) (int, string, []string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if sse {
		req.Header.Set("Accept", "text/event-stream")
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var msgs []string
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if sse {
			switch {
			case line == "" || strings.HasPrefix(line, ":"):
				continue
			case !strings.HasPrefix(line, "data: "):
				t.Fatalf("SSE line %q is not a data field", line)
			}
			line = strings.TrimPrefix(line, "data: ")
		}
		if !json.Valid([]byte(line)) {
			t.Fatalf("line %q is not one JSON message", line)
		}
		msgs = append(msgs, line)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), msgs
}

func TestHTTPStream(t *testing.T) {
	t.Parallel()
	srv, _ := newStreamServer(t, transport.Config{})
	tests := []struct {
		name string
		path string
		want []string
	}{
		{"chunks then end", "/api/stream/count?n=3",
			[]string{`{"type":"chunk","chunk":0}`, `{"type":"chunk","chunk":1}`, `{"type":"chunk","chunk":2}`, `{"type":"end"}`}},
		{"no chunk", "/api/stream/count?n=0", []string{`{"type":"end"}`}},
		{"versioned", "/api/1.0/stream/count?n=1", []string{`{"type":"chunk","chunk":0}`, `{"type":"end"}`}},
		{"failure mid-stream: one error, no end", "/api/stream/count?n=2&fail=BROKEN",
			[]string{`{"type":"chunk","chunk":0}`, `{"type":"chunk","chunk":1}`, `{"type":"error","error":"BROKEN","after":2}`}},
		{"non-streaming function: one chunk", "/api/stream/add?a=2&b=3", []string{`{"type":"chunk","chunk":5}`, `{"type":"end"}`}},
		{"unknown version", "/api/9.9/stream/count?n=1",
			[]string{`{"type":"error","error":"UNKNOWN-VERSION","version":"9.9","versions":["1.0"]}`}},
		{"unknown function", "/api/stream/nope", []string{`{"type":"error","error":"UNKNOWN-FUNCTION","path":"nope"}`}},
		{"missing argument", "/api/stream/add?a=1",
			[]string{`{"type":"error","error":"TOO-FEW-ARGUMENTS","count":2,"names":["a","b"]}`}},
		{"token needed", "/api/stream/whoami", []string{`{"type":"error","error":"API-AUTHENTICATION-NEEDED","path":"whoami"}`}},
		{"token in the query", "/api/stream/whoami?_key=secret:k", []string{`{"type":"chunk","chunk":"key"}`, `{"type":"end"}`}},
	}
	for _, tt := range tests {
		for _, sse := range []bool{false, true} {
			name := tt.name + map[bool]string{false: " (NDJSON)", true: " (SSE)"}[sse]
			t.Run(name, func(t *testing.T) {
				status, ctype, msgs := readStream(t, srv.Client(), srv.URL+tt.path, sse)
				if status != http.StatusOK {
					t.Errorf("status %d, want 200 for every stream", status)
				}
				wantType := map[bool]string{false: "application/x-ndjson", true: "text/event-stream"}[sse]
				if ctype != wantType {
					t.Errorf("Content-Type %q, want %q", ctype, wantType)
				}
				if !reflect.DeepEqual(msgs, tt.want) {
					t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(tt.want, "\n"))
				}
			})
		}
	}
}

// TestHTTPStreamFlushes reads the first chunk of a stream that has not finished: each message
// is flushed as it is produced.
func TestHTTPStreamFlushes(t *testing.T) {
	t.Parallel()
	srv, api := newStreamServer(t, transport.Config{})
	for _, sse := range []bool{false, true} {
		req, _ := http.NewRequest("GET", srv.URL+"/api/stream/wait?tag=flush", nil)
		if sse {
			req.Header.Set("Accept", "text/event-stream")
		}
		ctx, cancel := context.WithCancel(context.Background())
		res, err := srv.Client().Do(req.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		if got := <-api.started; got != "flush" {
			t.Fatalf("started %q", got)
		}
		// The header arrived while the function still runs; the client now goes away.
		cancel()
		if got := <-api.stopped; got != "flush" {
			t.Fatalf("stopped %q", got)
		}
		res.Body.Close()
	}
}

func TestHTTPStreamTimeout(t *testing.T) {
	t.Parallel()
	srv, api := newStreamServer(t, transport.Config{StreamTimeout: 50 * time.Millisecond})
	_, _, msgs := readStream(t, srv.Client(), srv.URL+"/api/stream/wait?tag=t", false)
	<-api.started
	<-api.stopped
	want := []string{`{"type":"error","error":"TIMEOUT"}`}
	if !reflect.DeepEqual(msgs, want) {
		t.Fatalf("messages %v, want %v", msgs, want)
	}
}

func TestSSEKeepalive(t *testing.T) {
	t.Parallel()
	srv, api := newStreamServer(t, transport.Config{WS: transport.WSConfig{PingInterval: 20 * time.Millisecond}})
	req, _ := http.NewRequest("GET", srv.URL+"/api/stream/wait?tag=k", nil)
	req.Header.Set("Accept", "text/event-stream")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := srv.Client().Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	<-api.started
	line, err := bufio.NewReader(res.Body).ReadString('\n')
	if err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if line != ": keepalive\n" {
		t.Fatalf("first line of an idle SSE stream %q, want a keepalive comment", line)
	}
	cancel()
	<-api.stopped
}

func TestStreamMetrics(t *testing.T) {
	t.Parallel()
	m := &transport.Metrics{}
	srv, _ := newStreamServer(t, transport.Config{Metrics: m})
	readStream(t, srv.Client(), srv.URL+"/api/stream/count?n=7", false)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `fnapi_chunks_total{function="count"} 7`) {
		t.Fatalf("metrics do not count 7 chunks:\n%s", rec.Body)
	}
}
