package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/internal/testutil"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestIdempotencyAcrossNodes runs two nodes on one PostgreSQL behind haproxy with the shipped
// configuration. Calls with one Idempotency-Key sent at once to both nodes make one dashboard
// and all get its answer (a repeat waits for the first, whichever node runs it). Then the Go
// client's create-dashboard through haproxy loses its answer (a proxy in front drops it and the
// node that ran the call dies): the client's retry, with the same key, lands on the other node,
// which replays the first answer.
func TestIdempotencyAcrossNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL, two nodes and haproxy")
	}
	testenv.Need(t, "haproxy", "haproxy")
	pg := testenv.StartPostgres(t)
	db := pg.Database(t)
	t.Setenv("SVC_ADMIN_PASSWORD", adminPassword)
	var nodes []*process
	for range 2 {
		addr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
		nodes = append(nodes, startService(t, "-addr", addr, "-data", t.TempDir(), "-postgres", db,
			"-proxy-protocol", "127.0.0.1/32"))
	}
	front := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	testenv.StartHAProxy(t, "deploy/haproxy.cfg", map[string]string{
		"DATASERVICE_LISTEN": front,
		"DATASERVICE_NODE1":  strings.TrimPrefix(nodes[0].url, "https://"),
		"DATASERVICE_NODE2":  strings.TrimPrefix(nodes[1].url, "https://"),
	}, front)
	lb := "https://" + front
	ctx := context.Background()
	newClient := func(base string, opts ...client.Option) *client.Client {
		c, err := client.New(base+"/api", append([]client.Option{client.WithHTTPClient(from("127.0.0.2"))}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	testutil.Until(t, time.Minute, "haproxy sees a ready node", func() error { return newClient(lb).Call(ctx, "echo", nil, nil) })
	var session, key string
	if err := newClient(lb).Call(ctx, "login", map[string]string{"user": "admin", "password": adminPassword}, &session); err != nil {
		t.Fatal(err)
	}
	if err := newClient(lb, client.WithSession(session)).Call(ctx, "create-api-key", map[string]string{"name": "idem"}, &key); err != nil {
		t.Fatal(err)
	}
	titled := func(title string) []api.DashboardSummary {
		t.Helper()
		var all, out []api.DashboardSummary
		if err := newClient(lb, client.WithAPIKey(key)).Call(ctx, "list-dashboards", nil, &all); err != nil {
			t.Fatal(err)
		}
		for _, d := range all {
			if d.Title == title {
				out = append(out, d)
			}
		}
		return out
	}

	// One key sent at once to both nodes, directly: one dashboard, one answer for all.
	kctx := client.WithIdempotencyKey(ctx, "at once")
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			var d api.Dashboard
			if err := newClient(nodes[i%2].url, client.WithAPIKey(key)).Call(kctx, "create-dashboard", map[string]string{"title": "At once"}, &d); err != nil {
				t.Errorf("create-dashboard on node %d: %v", i%2+1, err)
			}
			ids[i] = d.ID
		})
	}
	wg.Wait()
	if got := titled("At once"); len(got) != 1 {
		t.Fatalf("%d dashboards made by one key sent to two nodes at once, want 1", len(got))
	}
	for i, id := range ids {
		if id != ids[0] || id == "" {
			t.Fatalf("answers %q: call %d did not get the first answer", ids, i)
		}
	}

	// The Go client's answer lost: the node that ran the call dies, the retry lands on the
	// other one through haproxy and is replayed.
	var mu sync.Mutex
	var replayed []string
	killed := 0
	lossy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := http.NewRequestWithContext(r.Context(), r.Method, lb+r.URL.Path, r.Body)
		if err != nil {
			t.Error(err)
			return
		}
		req.Header = r.Header.Clone()
		before := []int{strings.Count(nodes[0].log.String(), "create-dashboard"), strings.Count(nodes[1].log.String(), "create-dashboard")}
		res, err := from("127.0.0.2").Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		mu.Lock()
		first := len(replayed) == 0
		replayed = append(replayed, res.Header.Get("Idempotent-Replayed"))
		mu.Unlock()
		if first {
			// The node's log line reaches the test through a pipe, after its answer: wait
			// for it (at most 10 s), then kill the node that ran the call.
			for deadline := time.Now().Add(10 * time.Second); killed == 0 && time.Now().Before(deadline); {
				for i, n := range nodes {
					if strings.Count(n.log.String(), "create-dashboard") > before[i] {
						if err := n.cmd.Process.Kill(); err != nil {
							t.Error(err)
						}
						mu.Lock()
						killed++
						mu.Unlock()
					}
				}
				if killed == 0 {
					time.Sleep(10 * time.Millisecond)
				}
			}
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		for k, vs := range res.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(res.StatusCode)
		w.Write(body)
	}))
	defer lossy.Close()
	var d api.Dashboard
	c := newClient(lossy.URL, client.WithAPIKey(key), client.WithRetries(5), client.WithHTTPClient(http.DefaultClient))
	if err := c.Call(ctx, "create-dashboard", map[string]string{"title": "Retried"}, &d); err != nil {
		t.Fatalf("create-dashboard through a lossy proxy with retries: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if killed != 1 {
		t.Fatalf("%d nodes ran the first attempt, want 1", killed)
	}
	if len(replayed) < 2 || replayed[len(replayed)-1] != "true" {
		t.Fatalf("Idempotent-Replayed of the attempts %q: want the last one replayed", replayed)
	}
	if got := titled("Retried"); len(got) != 1 || got[0].ID != d.ID {
		t.Fatalf("dashboards titled Retried %+v, want one, %s", got, d.ID)
	}
}
