package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/client"
	"go.uber.org/zap"
)

func serve(t *testing.T) *httptest.Server {
	t.Helper()
	mux, err := newMux(zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestStream reads countdown's chunks as they come, and its one result without stream/.
func TestStream(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	ctx := context.Background()
	c, _ := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()))
	var got []int
	for chunk, err := range c.Stream(ctx, "countdown", map[string]any{"from": 3, "every": 1}) {
		if err != nil {
			t.Fatal(err)
		}
		var tick Tick
		if err := json.Unmarshal(chunk, &tick); err != nil {
			t.Fatal(err)
		}
		got = append(got, tick.N)
	}
	if len(got) != 4 || got[0] != 3 || got[3] != 0 {
		t.Fatalf("chunks %v", got)
	}
	var all []Tick
	if err := c.Call(ctx, "countdown", map[string]any{"from": 2, "every": 1}, &all); err != nil || len(all) != 3 || all[2].N != 0 {
		t.Fatalf("result %v, %v", all, err)
	}
}

// TestSSE reads the stream as Server-Sent Events, as a browser's EventSource would.
func TestSSE(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	req, _ := http.NewRequest("GET", srv.URL+"/api/stream/countdown?from=1&every=1", nil)
	req.Header.Set("Accept", "text/event-stream")
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
	var types []string
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var m struct{ Type string }
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				t.Fatal(err)
			}
			types = append(types, m.Type)
		}
	}
	if strings.Join(types, ",") != "chunk,chunk,end" {
		t.Fatalf("messages %v", types)
	}
}

// TestCancel stops a long countdown over the WebSocket after its first chunk: the call ends
// at once instead of counting down for 100 s.
func TestCancel(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	ws, err := client.DialWS(context.Background(), "wss"+strings.TrimPrefix(srv.URL, "https")+"/api/ws",
		client.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	for _, err := range ws.Stream(ctx, "countdown", map[string]any{"from": 100, "every": 1000}) {
		if err != nil {
			if ctx.Err() == nil {
				t.Fatal(err)
			}
			break
		}
		n++
		cancel()
	}
	if n != 1 {
		t.Fatalf("%d chunks before the cancellation took effect", n)
	}
	var echo map[string]any
	if err := ws.Call(context.Background(), "echo", map[string]any{"x": 1}, &echo); err != nil || echo["x"] != float64(1) {
		t.Fatalf("the connection after a cancel: %v, %v", echo, err)
	}
}
