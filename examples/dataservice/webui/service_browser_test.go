package webui_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/internal/testutil"
)

// startService opens the data service with demo traffic and serves it over HTTPS (HTTP/2,
// as the real server does), counting the requests of each path.
func startService(t *testing.T) (*httptest.Server, *requests) {
	srv, hits, _ := startServiceWith(t, app.Config{Inlet: inlet.Configuration{Demo: true}})
	return srv, hits
}

// requests counts the requests of each path.
type requests struct {
	mu    sync.Mutex
	paths map[string]int
}

func (r *requests) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.paths[req.URL.Path]++
		r.mu.Unlock()
		h.ServeHTTP(w, req)
	})
}

func (r *requests) count(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.paths[path]
}

// waitDemo waits until the demo's backfill, which writes the last 24 hours oldest first, has
// reached the last two hours: several applications answer there, as the tests expect.
func waitDemo(t *testing.T, srv *httptest.Server) {
	t.Helper()
	var token string
	call(t, srv.Client(), srv.URL, "login", map[string]any{"user": "admin", "password": adminPassword}, &token)
	testutil.Until(t, 3*time.Minute, "the demo's traffic of the last 10 minutes", func() error {
		var res []struct{ Data []json.RawMessage }
		call(t, srv.Client(), srv.URL, "query", map[string]any{"expr": "traffic BY application SINCE @now-600", "_session": token}, &res)
		if len(res) != 1 {
			return fmt.Errorf("%d statements answered, want 1", len(res))
		}
		if n := len(res[0].Data); n < 3 {
			return fmt.Errorf("%d applications, want 3 or more", n)
		}
		return nil
	})
}

// ingestKnown stores the known records through the API.
func ingestKnown(t *testing.T, srv *httptest.Server) {
	ingestKnownAt(t, srv.Client(), srv.URL)
}

// ingestKnownAt stores the known records through the API at base.
func ingestKnownAt(t *testing.T, client *http.Client, base string) {
	var token string
	call(t, client, base, "login", map[string]any{"user": "admin", "password": adminPassword}, &token)
	now := time.Now().Unix()
	var records []map[string]any
	for k := 1; k <= knownPoints; k++ {
		records = append(records, map[string]any{
			"time":     now - int64(60*k) - 5,
			"protocol": "tcp",
			"client":   map[string]any{"ip": "192.0.2.7", "port": 50000 + k, "bytes": 1000 * (knownPoints + 1 - k), "packets": 3},
			"server":   map[string]any{"ip": "198.51.100.1", "port": 443, "bytes": 500, "packets": 2},
		})
	}
	call(t, client, base, "ingest", map[string]any{"records": records, "_session": token}, nil)
}

func call(t *testing.T, client *http.Client, base, fn string, args map[string]any, out any) {
	t.Helper()
	body, _ := json.Marshal(args)
	res, err := client.Post(base+"/api/"+fn, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var msg struct {
		Type   string          `json:"type"`
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&msg); err != nil || msg.Type != "result" {
		t.Fatalf("%s: %s %v", fn, msg.Error, err)
	}
	if out != nil {
		if err := json.Unmarshal(msg.Result, out); err != nil {
			t.Fatal(err)
		}
	}
}
