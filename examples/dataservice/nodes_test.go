package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

const adminPassword = "correct horse battery staple"

// wsConnections reads a node's count of open WebSocket connections from its metrics.
func wsConnections(p *process) (int, error) {
	res, err := http.Get(p.metrics)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "fnapi_websocket_connections "); ok {
			return strconv.Atoi(v)
		}
	}
	return 0, errors.New("no fnapi_websocket_connections metric")
}

// TestSeveralNodes runs the deployment docs/nodes.md shows: PostgreSQL, ClickHouse, two nodes and
// haproxy with the shipped configuration. The nodes agree at once, directly and through haproxy; then
// the node that carries a live query stream is killed while calls run through haproxy: the
// stream goes on from the other node, the calls in flight fail cleanly, and every call that
// was acknowledged kept its effect. Last, PostgreSQL stops and starts again: calls through
// haproxy answer UNAVAILABLE meanwhile, then succeed.
func TestSeveralNodes(t *testing.T) {
	// Serial: t.Setenv sets the environment the service's process inherits.
	if testing.Short() {
		t.Skip("starts PostgreSQL, two nodes and haproxy")
	}
	testenv.Need(t, "haproxy", "haproxy")
	ch := testenv.ClickHouse(t)
	pg := testenv.StartPostgres(t)
	db := pg.Database(t)
	t.Setenv("SVC_ADMIN_PASSWORD", adminPassword)
	var nodes []*process
	for range 2 {
		addr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
		// haproxy connects from 127.0.0.1 and sends the PROXY protocol; the test's own direct
		// calls come from 127.0.0.2.
		nodes = append(nodes, startService(t, "-addr", addr, "-data", t.TempDir(), "-postgres", db, "-clickhouse", ch.URL,
			"-proxy-protocol", "127.0.0.1/32", "-metrics", "127.0.0.1:0"))
	}
	front := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	hp := testenv.StartHAProxy(t, "deploy/haproxy.cfg", map[string]string{
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
	testutil.Until(t, time.Minute, "haproxy sees a ready node", func() error {
		return newClient(lb).Call(ctx, "echo", nil, nil)
	})
	login := func(base string) string {
		var s string
		if err := newClient(base).Call(ctx, "login", map[string]string{"user": "admin", "password": adminPassword}, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	refusedOn := func(base, key string) func() error {
		return func() error {
			err := newClient(base, client.WithAPIKey(key)).Call(ctx, "list-api-keys", nil, nil)
			if errors.Is(err, apierr.New(apierr.AuthenticationNeeded)) {
				return nil
			}
			return fmt.Errorf("answered %v", err)
		}
	}

	// Directly: a session made on one node works on the other; a key revoked on one is
	// refused by the other.
	s1 := login(nodes[0].url)
	if err := newClient(nodes[1].url, client.WithSession(s1)).Call(ctx, "list-api-keys", nil, nil); err != nil {
		t.Fatalf("a session of node 1 on node 2: %v", err)
	}
	var key string
	if err := newClient(nodes[0].url, client.WithSession(s1)).Call(ctx, "create-api-key", map[string]string{"name": "revoked"}, &key); err != nil {
		t.Fatal(err)
	}
	if err := newClient(nodes[1].url, client.WithAPIKey(key)).Call(ctx, "list-api-keys", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := newClient(nodes[0].url, client.WithSession(s1)).Call(ctx, "revoke-api-key", map[string]string{"name": "revoked"}, nil); err != nil {
		t.Fatal(err)
	}
	testutil.Until(t, time.Minute, "node 2 refuses a key revoked on node 1", refusedOn(nodes[1].url, key))

	// Through haproxy: a key made and revoked there, and a configuration set there, as each
	// node sees them directly.
	lbAdmin := newClient(lb, client.WithSession(login(lb)))
	if err := lbAdmin.Call(ctx, "create-api-key", map[string]string{"name": "ops"}, &key); err != nil {
		t.Fatal(err)
	}
	if err := lbAdmin.Call(ctx, "set-config", map[string]any{"values": map[string]any{"default_period": "2h"}}, nil); err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		testutil.Until(t, time.Minute, fmt.Sprintf("node %d sees the configuration set through haproxy", i+1), func() error {
			var cfg map[string]any
			if err := newClient(n.url, client.WithAPIKey(key)).Call(ctx, "get-config", nil, &cfg); err != nil {
				return err
			}
			if cfg["default_period"] != "2h" {
				return fmt.Errorf("default_period %v", cfg["default_period"])
			}
			return nil
		})
	}
	var doomed string
	if err := lbAdmin.Call(ctx, "create-api-key", map[string]string{"name": "doomed"}, &doomed); err != nil {
		t.Fatal(err)
	}
	if err := lbAdmin.Call(ctx, "revoke-api-key", map[string]string{"name": "doomed"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		testutil.Until(t, time.Minute, "a key revoked through haproxy is refused by every node", refusedOn(n.url, doomed))
	}

	// Kill the node that carries a live stream, while calls run through haproxy.
	sctx, stopStream := context.WithCancel(ctx)
	defer stopStream()
	chunks := make(chan error, 1000)
	go func() {
		wss := "wss://" + front + "/api/ws"
		for _, err := range client.FollowWS(sctx, wss, "query", map[string]any{"expr": "records", "follow": true, "interval": 1},
			client.WithHTTPClient(insecure()), client.WithAPIKey(key)) {
			chunks <- err
		}
		close(chunks)
	}()
	if err := <-chunks; err != nil {
		t.Fatal(err)
	}
	victim := -1
	testutil.Until(t, time.Minute, "a node carries the stream", func() error {
		for i, n := range nodes {
			if c, err := wsConnections(n); err == nil && c == 1 {
				victim = i
				return nil
			}
		}
		return errors.New("no node has the WebSocket")
	})

	// The calls: dashboards made (kept in PostgreSQL) and records ingested (in ClickHouse), each
	// record told apart by its client port.
	type ack struct {
		id    string // of a dashboard; "" for an ingested record
		title string
		port  int
	}
	var (
		mu     sync.Mutex
		acked  []ack
		failed []error
		ports  int
	)
	marker := time.Now().Unix() - 60
	stopLoad := make(chan struct{})
	var load sync.WaitGroup
	for w := range 4 {
		load.Go(func() {
			c := newClient(lb, client.WithAPIKey(key))
			pace := time.NewTicker(20 * time.Millisecond) // under the key's call rate limit
			defer pace.Stop()
			for i := 0; ; i++ {
				select {
				case <-stopLoad:
					return
				case <-pace.C:
				}
				var a ack
				var err error
				cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				if w%2 == 0 {
					a.title = fmt.Sprintf("ack %d-%d", w, i)
					var d struct{ ID string }
					err = c.Call(cctx, "create-dashboard", map[string]string{"title": a.title}, &d)
					a.id = d.ID
				} else {
					mu.Lock()
					ports++
					a.port = ports
					mu.Unlock()
					rec := map[string]any{"time": marker, "protocol": "tcp",
						"client": map[string]any{"ip": "10.1.0.1", "port": a.port, "bytes": 1, "packets": 1},
						"server": map[string]any{"ip": "10.250.0.1", "port": 443, "bytes": 1, "packets": 1}}
					err = c.Call(cctx, "ingest", map[string]any{"records": []any{rec}}, nil)
				}
				cancel()
				mu.Lock()
				if err == nil {
					acked = append(acked, a)
				} else {
					failed = append(failed, err)
				}
				mu.Unlock()
			}
		})
	}
	testutil.Until(t, time.Minute, "calls are acknowledged", func() error {
		mu.Lock()
		defer mu.Unlock()
		if len(acked) < 20 {
			return fmt.Errorf("%d acknowledged", len(acked))
		}
		return nil
	})
	killed := time.Now()
	if err := nodes[victim].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = nodes[victim].cmd.Wait()
	survivor := nodes[1-victim]
	// The stream goes on: it reconnects through haproxy to the survivor, and chunks keep coming.
	testutil.Until(t, time.Minute, "the stream reconnects to the survivor", func() error {
		if c, err := wsConnections(survivor); err != nil || c != 1 {
			return fmt.Errorf("the survivor carries %d WebSockets (%v)", c, err)
		}
		return nil
	})
	t.Logf("the stream reconnected to the survivor %v after the kill", time.Since(killed).Round(time.Millisecond))
	for drained := false; !drained; { // chunks from before the kill
		select {
		case err, ok := <-chunks:
			if !ok || err != nil {
				t.Fatalf("the stream ended after the node died: %v", err)
			}
		default:
			drained = true
		}
	}
	for range 2 {
		select {
		case err, ok := <-chunks:
			if !ok || err != nil {
				t.Fatalf("the stream ended after the node died: %v", err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("no chunk within a minute after the node died\nhaproxy:\n%s", hp.Log())
		}
	}
	mu.Lock()
	before := len(acked)
	mu.Unlock()
	testutil.Until(t, time.Minute, "calls through haproxy succeed again", func() error {
		mu.Lock()
		defer mu.Unlock()
		if len(acked) < before+20 {
			return fmt.Errorf("%d acknowledged since the kill", len(acked)-before)
		}
		return nil
	})
	close(stopLoad)
	load.Wait()
	stopStream()

	for _, err := range failed {
		var e *apierr.Error
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			t.Errorf("a call in flight hung until its deadline: %v", err)
		case errors.As(err, &e) && e.Code() != apierr.Unavailable.Code() && e.Code() != apierr.RateLimited.Code():
			t.Errorf("a call failed with %v; want a lost connection or UNAVAILABLE", err)
		}
	}
	var list []struct{ ID, Title string }
	survivorAPI := newClient(survivor.url, client.WithAPIKey(key))
	if err := survivorAPI.Call(ctx, "list-dashboards", nil, &list); err != nil {
		t.Fatal(err)
	}
	kept := map[string]string{}
	for _, d := range list {
		kept[d.ID] = d.Title
	}
	var res []struct{ Data [][2][]float64 }
	expr := fmt.Sprintf("records BY client.port WHERE server.ip = 10.250.0.1 SINCE %d UNTIL %d", marker, marker+1)
	if err := survivorAPI.Call(ctx, "query", map[string]string{"expr": expr}, &res); err != nil {
		t.Fatal(err)
	}
	stored := map[int]bool{}
	for _, row := range res[0].Data {
		stored[int(row[0][0])] = true
	}
	var records int
	for _, a := range acked {
		switch {
		case a.id != "" && kept[a.id] != a.title:
			t.Errorf("dashboard %q (%s) was acknowledged and is lost", a.title, a.id)
		case a.id == "" && !stored[a.port]:
			t.Errorf("the record of client port %d was acknowledged and is lost", a.port)
		case a.id == "":
			records++
		}
	}
	if records == 0 {
		t.Fatal("no record was acknowledged")
	}
	// PostgreSQL down: no node is ready, and haproxy's fallback still brings calls to a node,
	// which answers UNAVAILABLE; once the database is back, calls succeed again.
	pg.Stop(t)
	testutil.Until(t, time.Minute, "the survivor is not ready", func() error {
		res, err := from("127.0.0.2").Get(survivor.url + "/readyz")
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != 503 {
			return fmt.Errorf("readiness %d", res.StatusCode)
		}
		return nil
	})
	lbKey := newClient(lb, client.WithAPIKey(key))
	testutil.Until(t, time.Minute, "calls through haproxy answer UNAVAILABLE", func() error {
		err := lbKey.Call(ctx, "list-dashboards", nil, nil)
		if errors.Is(err, apierr.New(apierr.Unavailable)) {
			return nil
		}
		return fmt.Errorf("answered %v", err)
	})
	// haproxy marks a node down after two failed checks a second apart, and closes its
	// connections (a call on one then fails with a lost connection): past that, calls must
	// still reach a node (the backup lines) and get UNAVAILABLE, not a refused connection.
	pace := time.NewTicker(100 * time.Millisecond) // a call every 100 ms for 6 s
	defer pace.Stop()
	for until := time.Now().Add(6 * time.Second); time.Now().Before(until); <-pace.C {
		err := lbKey.Call(ctx, "list-dashboards", nil, nil)
		var e *apierr.Error
		if errors.As(err, &e) && e.Code() != apierr.Unavailable.Code() {
			t.Fatalf("with PostgreSQL down, a call through haproxy answered %v; want UNAVAILABLE", err)
		}
	}
	err := lbKey.Call(ctx, "list-dashboards", nil, nil)
	if !errors.As(err, new(*apierr.Error)) { // a connection closed by the marking, at worst once
		err = lbKey.Call(ctx, "list-dashboards", nil, nil)
	}
	if !errors.Is(err, apierr.New(apierr.Unavailable)) {
		t.Fatalf("with PostgreSQL down and every node marked down, a call through haproxy answered %v; want UNAVAILABLE\nhaproxy:\n%s", err, hp.Log())
	}
	pg.Start(t)
	testutil.Until(t, time.Minute, "calls through haproxy succeed once PostgreSQL is back", func() error {
		return lbKey.Call(ctx, "list-dashboards", nil, nil)
	})

	kinds := map[string]int{}
	for _, err := range failed {
		msg := err.Error()
		if i := strings.LastIndex(msg, ": "); i > 0 {
			msg = msg[i+2:]
		}
		kinds[msg]++
	}
	t.Logf("%d calls acknowledged; %d failed while the node died: %v", len(acked), len(failed), kinds)
}
