package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// hookReceiver is a real HTTPS webhook receiver: it answers 500 to its first call, then
// acknowledges, and records the states it acknowledged and the delivery ID of every call.
type hookReceiver struct {
	srv   *httptest.Server
	mu    sync.Mutex
	tries int
	got   []string
	ids   []string // alerts.DeliveryHeader of each call
	acked []string // of each call acknowledged
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tries++
	h.ids = append(h.ids, r.Header.Get(alerts.DeliveryHeader))
	if h.tries == 1 || !strings.HasPrefix(r.Header.Get(alerts.SignatureHeader), "t=") {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	var n struct{ State string }
	_ = json.Unmarshal(body, &n)
	h.got = append(h.got, n.State)
	h.acked = append(h.acked, r.Header.Get(alerts.DeliveryHeader))
}

func (h *hookReceiver) seen() (int, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tries, slices.Clone(h.got)
}

// TestAlertsMoveBetweenNodes runs two nodes on PostgreSQL and kills the one evaluating the
// rules while an alert fires and its notification is failing: the other takes over within
// seconds, delivers the notification, resolves the alert, and the receiver acknowledges
// firing and resolved exactly once each.
func TestAlertsMoveBetweenNodes(t *testing.T) {
	// Serial: t.Setenv sets the process environment.
	pg := testenv.StartPostgres(t)
	url := pg.Database(t)
	t.Setenv("SVC_ADMIN_PASSWORD", "correct horse battery staple")
	h := &hookReceiver{}
	h.srv = httptest.NewTLSServer(h)
	t.Cleanup(h.srv.Close)
	cfg := app.Config{Postgres: url, Auth: []auth.Option{auth.WithCacheTTL(time.Hour)},
		Alerts: alerts.Configuration{WebhookAllow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
			WebhookRoots: h.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs, Backoff: 3 * time.Second}}
	nodes := []*node{startNode(t, cfg), startNode(t, cfg)}
	ctx := context.Background()
	c := nodes[0].client(t)
	if _, err := client.Call(ctx, c, api.CreateAlertRule, api.CreateAlertRuleArgs{Name: "moving",
		Query:    "records BY server.ip WHERE server.ip = 10.88.0.1 HAVING records > 0 SINCE @now-15",
		Interval: "10s", Notify: []api.AlertChannel{{Webhook: h.srv.URL + "/hook", Secret: "k"}}}); err != nil {
		t.Fatal(err)
	}
	// Each node keeps its records in its own DuckDB: both receive the traffic.
	rec := []any{record(time.Now().Unix()-1, "10.1.1.1", "10.88.0.1", 443, 1, 2)}
	for _, n := range nodes {
		if err := n.client(t).Call(ctx, "ingest", map[string]any{"records": rec}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The rule's first round may have run before the records arrived: the next is an interval
	// later.
	testutil.Until(t, 25*time.Second, "the first notification attempt", func() error {
		if tries, _ := h.seen(); tries == 0 {
			return errNotYet
		}
		return nil
	})
	var dead, alive *node
	for i, n := range nodes {
		if n.app.EvaluatesAlerts() {
			dead, alive = n, nodes[1-i]
		}
	}
	if dead == nil {
		t.Fatal("no node evaluates the rules")
	}
	dead.close(t) // before its retry, 3 s after the failure
	testutil.Until(t, testutil.Wait, "the other node takes the alerts over", func() error {
		if !alive.app.EvaluatesAlerts() {
			return errNotYet
		}
		return nil
	})
	testutil.Until(t, 45*time.Second, "firing and resolved acknowledged", func() error {
		if tries, got := h.seen(); len(got) < 2 {
			return fmt.Errorf("after %d tries the receiver acknowledged %q", tries, got)
		}
		return nil
	})
	// A sleep, not a wait: no event marks a notification not sent twice, and one sent twice
	// would come within 2 s.
	time.Sleep(2 * time.Second)
	if _, got := h.seen(); !slices.Equal(got, []string{"firing", "resolved"}) {
		t.Fatalf("the receiver acknowledged %q; want firing and resolved once each", got)
	}
	hist, err := client.Call(ctx, alive.client(t), api.AlertHistory, api.AlertHistoryArgs{})
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, e := range hist {
		states = append(states, e.State)
	}
	if !slices.Equal(states, []string{"resolved", "firing"}) {
		t.Fatalf("history %q; want firing then resolved, once each", states)
	}
	// The dead node's failed attempt and the other's acknowledged one are one delivery: a
	// receiver de-duplicating on the ID would see a repeat as such.
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.acked) != 2 || h.ids[0] == "" || h.ids[0] != h.acked[0] || h.acked[0] == h.acked[1] {
		t.Fatalf("delivery IDs of the calls %q, of those acknowledged %q; want the firing's the same from both nodes, the resolved's another", h.ids, h.acked)
	}
}

var errNotYet = &notYet{}

type notYet struct{}

func (*notYet) Error() string { return "not yet" }

// node is one node of a service of several, which a test may stop before its end.
type node struct {
	app    *app.App
	srv    *httptest.Server
	key    string
	closed bool
}

func startNode(t *testing.T, cfg app.Config) *node {
	t.Helper()
	cfg.DataDir = t.TempDir()
	cfg.Auth = append([]auth.Option{auth.WithArgon2(auth.Argon2{Memory: 64, Iterations: 1, Parallelism: 1})}, cfg.Auth...)
	a, err := app.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := &node{app: a, srv: httptest.NewTLSServer(a.Handler())}
	t.Cleanup(func() { n.close(t) })
	anon, err := client.New(n.srv.URL+"/api", client.WithHTTPClient(n.srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	session, err := client.Call(context.Background(), anon, authapi.Login, authapi.LoginArgs{User: "admin", Password: "correct horse battery staple"})
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := client.New(n.srv.URL+"/api", client.WithHTTPClient(n.srv.Client()), client.WithSession(session))
	if n.key, err = client.Call(context.Background(), sc, authapi.CreateAPIKey, authapi.KeyArgs{Name: "node-" + n.srv.URL}); err != nil {
		t.Fatal(err)
	}
	return n
}

func (n *node) client(t *testing.T) *client.Client {
	c, err := client.New(n.srv.URL+"/api", client.WithHTTPClient(n.srv.Client()), client.WithAPIKey(n.key))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (n *node) close(t *testing.T) {
	if n.closed {
		return
	}
	n.closed = true
	n.srv.Close()
	if err := n.app.Close(context.Background()); err != nil {
		t.Error(err)
	}
}
