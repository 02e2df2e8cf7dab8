package alerts_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// TestFiresAndResolves drives traffic over a threshold and back: the group is pending, fires
// once its condition has held for the rule's For, and resolves when it no longer holds; each
// transition is in the history with its values, and the webhook receives firing and resolved
// once each, signed.
func TestFiresAndResolves(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, "s3cret")
	e := newEnv(t, rcv.options())
	ctx := context.Background()
	t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	r := e.rule(t, state.AlertRule{Name: "busy server", Severity: "critical", Labels: map[string]string{"site": "par"},
		Query: "traffic BY server.ip HAVING traffic > 1000 SINCE @now-300", For: time.Minute,
		Notify: notify(t, alerts.Channel{Webhook: rcv.srv.URL + "/hook", Secret: "s3cret"})})
	e.traffic(t, t0.Unix()-10, "10.0.0.1", 500)  // under the threshold
	e.traffic(t, t0.Unix()-10, "10.0.0.2", 5000) // over it

	e.tick(t, t0)
	if ins, _ := e.st.Instances(ctx, r.ID); len(ins) != 1 || ins[0].State != alerts.Pending || ins[0].Group != `["10.0.0.2"]` {
		t.Fatalf("after the first evaluation: %+v, want 10.0.0.2 pending", ins)
	}
	e.tick(t, t0.Add(5*time.Second)) // not due: the interval is 10 s
	e.tick(t, t0.Add(30*time.Second))
	e.traffic(t, t0.Unix()+50, "10.0.0.2", 5000)
	e.tick(t, t0.Add(60*time.Second)) // held for a minute: fires
	if err := e.svc.Deliver(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	e.tick(t, t0.Add(400*time.Second)) // the records left the window: resolved
	if err := e.svc.Deliver(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	want := []string{`pending ["10.0.0.2"] [5000]`, `firing ["10.0.0.2"] [10000]`, `resolved ["10.0.0.2"] [10000]`}
	if got := e.states(t, r.ID); !slices.Equal(got, want) {
		t.Fatalf("history:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The history by the rule's labels: all of them, or none for a label it lacks.
	for _, tt := range []struct {
		labels map[string]string
		want   int
	}{{map[string]string{"site": "par"}, 3}, {map[string]string{"site": "lon"}, 0}, {map[string]string{"site": "par", "team": "x"}, 0}} {
		if es, err := e.st.History(ctx, state.AlertQuery{Labels: tt.labels}); err != nil || len(es) != tt.want {
			t.Errorf("history of the rules labelled %v: %d events (%v), want %d", tt.labels, len(es), err, tt.want)
		}
	}
	got, tries, bad := rcv.deliveries()
	if len(bad) > 0 || tries != 2 || len(got) != 2 {
		t.Fatalf("receiver: %d tries, %d acknowledged, bad signatures %q", tries, len(got), bad)
	}
	if got[0].State != alerts.Firing || got[1].State != alerts.Resolved || got[0].Rule.ID != r.ID ||
		got[0].Rule.Name != "busy server" || got[0].Rule.Severity != "critical" || got[0].Rule.Labels["site"] != "par" ||
		string(got[0].Group) != `["10.0.0.2"]` || *got[0].Values[0] != 10000 || !got[0].At.Equal(t0.Add(time.Minute)) ||
		!got[1].Since.Equal(got[0].At) {
		t.Fatalf("notifications: %+v", got)
	}
	if ins, _ := e.st.Instances(ctx, r.ID); len(ins) != 0 {
		t.Fatalf("after resolving: %+v", ins)
	}
	if ids := rcv.deliveryIDs(); len(ids) != 2 || ids[0] == "" || ids[1] == "" || ids[0] == ids[1] {
		t.Fatalf("delivery IDs %q: want one of its own for each notification", ids)
	}
}

// TestWebhookRetries checks that a receiver answering 500 is retried with back-off until it
// answers 2xx, and then never again: each transition acknowledged exactly once.
func TestWebhookRetries(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, "k", 500, 500, 503)
	e := newEnv(t, rcv.options())
	ctx := context.Background()
	t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	r := e.rule(t, state.AlertRule{Name: "any", Query: "records HAVING records > 0 SINCE @now-60",
		Notify: notify(t, alerts.Channel{Webhook: rcv.srv.URL, Secret: "k"})})
	e.traffic(t, t0.Unix()-1, "10.0.0.1", 1)
	e.tick(t, t0)
	for i := range 10 { // each a minute later: past the back-off of the attempt before
		if err := e.svc.Deliver(ctx, time.Now().Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	got, tries, bad := rcv.deliveries()
	if len(bad) > 0 || tries != 4 || len(got) != 1 || got[0].State != alerts.Firing {
		t.Fatalf("receiver: %d tries, acknowledged %+v, bad signatures %q; want 4 tries, one firing", tries, got, bad)
	}
	// Every attempt carries the same delivery ID, by which a receiver drops a repeat.
	if ids := rcv.deliveryIDs(); len(ids) != 4 || ids[0] == "" || len(slices.Compact(slices.Clone(ids))) != 1 {
		t.Fatalf("delivery IDs of the attempts %q: want one, the same each time", ids)
	}
	cs, err := e.st.Channels(ctx)
	if err != nil || len(cs) != 1 || cs[0].Error != "" || !cs[0].Done || cs[0].Rule != r.ID {
		t.Fatalf("channel state: %+v, %v", cs, err)
	}
}

// TestWebhookRefused checks that webhooks reach neither loopback nor private addresses
// unless allowed, follow no redirect, and that the failure shows on the channel's state,
// without the URL (a credential).
func TestWebhookRefused(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, "k")
	redirect := httptest.NewTLSServer(http.RedirectHandler(rcv.srv.URL, http.StatusFound))
	t.Cleanup(redirect.Close)
	for _, c := range []struct {
		name  string
		allow []netip.Prefix
		url   string
		want  string
	}{
		{"loopback", nil, rcv.srv.URL + "/token", "not allowed for webhooks"},
		{"allowed elsewhere", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, rcv.srv.URL + "/token", "not allowed for webhooks"},
		{"redirect", []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, redirect.URL + "/token", "302"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := rcv.options()
			o.WebhookAllow, o.Attempts = c.allow, 1
			e := newEnv(t, o)
			ctx := context.Background()
			t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
			e.rule(t, state.AlertRule{Name: "any", Query: "records HAVING records > 0 SINCE @now-60",
				Notify: notify(t, alerts.Channel{Webhook: c.url, Secret: "k"})})
			e.traffic(t, t0.Unix()-1, "10.0.0.1", 1)
			e.tick(t, t0)
			if err := e.svc.Deliver(ctx, time.Now()); err != nil {
				t.Fatal(err)
			}
			cs, err := e.st.Channels(ctx)
			if err != nil || len(cs) != 1 || !strings.Contains(cs[0].Error, c.want) || !cs[0].Done {
				t.Fatalf("channel state: %+v, %v; want given up with %q", cs, err, c.want)
			}
			if strings.Contains(cs[0].Error, "/token") { // stored, answered, logged: never the URL
				t.Fatalf("the channel's error holds the URL: %s", cs[0].Error)
			}
		})
	}
	if _, tries, _ := rcv.deliveries(); tries != 0 {
		t.Fatalf("the receiver was reached %d times", tries)
	}
	g := alerts.NewGuard(nil)
	for _, a := range []string{"127.0.0.1", "::1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254",
		"100.64.0.1", "0.0.0.0", "fc00::1", "fe80::1", "::ffff:127.0.0.1", "224.0.0.1"} {
		if g.Allowed(netip.MustParseAddr(a)) {
			t.Errorf("%s allowed", a)
		}
	}
	for _, a := range []string{"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "8.8.8.8"} {
		if !g.Allowed(netip.MustParseAddr(a)) {
			t.Errorf("%s refused", a)
		}
	}
}

// TestSharedQuery checks that rules with the same query, or queries that differ only in their
// HAVING, share one computation, and that a silenced rule records its transitions but
// notifies nobody.
func TestSharedQuery(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, "k")
	e := newFullEnv(t, rcv.options())
	ctx := context.Background()
	t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	q := "traffic BY server.ip HAVING traffic > 10 SINCE @now-60"
	var ids []string
	for _, name := range []string{"a", "b", "c"} {
		ids = append(ids, e.rule(t, state.AlertRule{Name: name, Query: q,
			Notify: notify(t, alerts.Channel{Webhook: rcv.srv.URL, Secret: "k"})}).ID)
	}
	e.rule(t, state.AlertRule{Name: "other", Query: "records BY server.ip HAVING records > 0 SINCE @now-60"})
	high := e.rule(t, state.AlertRule{Name: "higher", Query: "traffic BY server.ip HAVING traffic > 1000 SINCE @now-60"})
	low := e.rule(t, state.AlertRule{Name: "lower", Query: "traffic  BY server.ip HAVING traffic > 50 AND packets >= 0 SINCE @now-60"})
	if err := e.st.Silence(ctx, ids[2], "", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	e.traffic(t, t0.Unix()-1, "10.0.0.1", 100)
	e.tick(t, t0)
	if n := e.svc.Evaluations(); n != 2 {
		t.Fatalf("6 rules of 2 shapes ran %d queries", n)
	}
	if got := e.states(t, high.ID); len(got) != 0 {
		t.Fatalf("the rule over 1000: %q", got)
	}
	if got := e.states(t, low.ID); len(got) != 1 || got[0] != `firing ["10.0.0.1"] [100]` {
		t.Fatalf("the rule over 50: %q", got)
	}
	if err := e.svc.Deliver(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if got := e.states(t, id); len(got) != 1 || !strings.HasPrefix(got[0], "firing") {
			t.Fatalf("rule %s: %q", id, got)
		}
	}
	if got, _, _ := rcv.deliveries(); len(got) != 2 || got[0].Rule.ID == ids[2] || got[1].Rule.ID == ids[2] {
		t.Fatalf("notified %+v; want rules a and b only", got)
	}
}

// TestBaselineRule checks a rule without a hand-picked number: it fires on a burst of ten
// times last week's traffic at that hour, and not on the same traffic as last week.
func TestBaselineRule(t *testing.T) {
	t.Parallel()
	e := newFullEnv(t, alerts.Options{})
	t0 := time.Now().Truncate(time.Hour).Add(-time.Hour)
	week := int64(7 * 24 * 3600)
	r := e.rule(t, state.AlertRule{Name: "unusual",
		Query: "traffic BY server.ip HAVING traffic > 3 * baseline(traffic, 7d) SINCE @now-3600"})
	for _, s := range []string{"10.0.0.1", "10.0.0.2"} {
		e.traffic(t, t0.Unix()-600-week, s, 4000)
	}
	e.traffic(t, t0.Unix()-600, "10.0.0.1", 40000) // the burst
	e.traffic(t, t0.Unix()-600, "10.0.0.2", 4000)  // as last week
	e.tick(t, t0)
	if got := e.states(t, r.ID); len(got) != 1 || got[0] != `firing ["10.0.0.1"] [40000]` {
		t.Fatalf("history %q; want 10.0.0.1 firing alone", got)
	}
}

// TestFamilyQueries checks that rules whose queries differ only in the server they watch (and
// their thresholds) are answered with one read of the store, and fire and resolve exactly as
// when each query is answered alone.
func TestFamilyQueries(t *testing.T) {
	t.Parallel()
	recs, err := duckdb.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { recs.Close() })
	together := envEach(t, recs, alerts.Options{}, false, true)
	alone := envEach(t, recs, alerts.Options{}, false, false)
	queries := map[string]string{
		"s1":      "traffic BY client.ip WHERE server.ip = 10.0.0.1 HAVING traffic > 50 SINCE @now-60",
		"s1 high": "traffic BY client.ip WHERE server.ip = 10.0.0.1 HAVING traffic > 500 SINCE @now-60",
		"s2":      "traffic BY client.ip WHERE server.ip = 10.0.0.2 HAVING traffic > 50 SINCE @now-60",
		"s3":      "traffic BY client.ip WHERE server.ip = 10.0.0.3 HAVING traffic > 50 SINCE @now-60",
		"s4":      "traffic BY client.ip WHERE server.ip = 10.0.0.4 HAVING traffic > 50 SINCE @now-60",
		"s3 all":  "traffic WHERE server.ip = 10.0.0.3 HAVING traffic > 0 SINCE @now-60",
		"s5 all":  "traffic WHERE server.ip = 10.0.0.5 HAVING traffic > 0 SINCE @now-60",
	}
	ids := map[*env]map[string]string{together: {}, alone: {}}
	for _, e := range []*env{together, alone} {
		for name, q := range queries {
			ids[e][name] = e.rule(t, state.AlertRule{Name: name, Query: q}).ID
		}
	}
	t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	together.flow(t, t0.Unix()-1, "10.9.9.1", "10.0.0.1", 100)
	together.flow(t, t0.Unix()-1, "10.9.9.2", "10.0.0.1", 1000)
	together.flow(t, t0.Unix()-1, "10.9.9.1", "10.0.0.2", 10)
	together.flow(t, t0.Unix()-1, "10.9.9.2", "10.0.0.3", 60)
	for _, e := range []*env{together, alone} {
		e.tick(t, t0)
	}
	if a, b := together.svc.Evaluations(), alone.svc.Evaluations(); a != 2 || b != 7 {
		t.Fatalf("7 queries of 2 families: %d reads together, %d alone; want 2 and 7", a, b)
	}
	together.flow(t, t0.Unix()+100, "10.9.9.1", "10.0.0.2", 100)
	together.flow(t, t0.Unix()+100, "10.9.9.2", "10.0.0.1", 600)
	for _, e := range []*env{together, alone} {
		e.tick(t, t0.Add(2*time.Minute))
	}
	transitions := 0
	for name := range queries {
		got, want := together.states(t, ids[together][name]), alone.states(t, ids[alone][name])
		if !slices.Equal(got, want) {
			t.Errorf("rule %s: together\n%s\nalone\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		transitions += len(got)
	}
	// 10.9.9.2 sends 600 more: still firing; 10.9.9.1 nothing: resolved.
	want := []string{`firing ["10.9.9.2"] [1000]`, `firing ["10.9.9.1"] [100]`, `resolved ["10.9.9.1"] [100]`}
	if got := together.states(t, ids[together]["s1"]); !slices.Equal(got, want) {
		t.Errorf("rule s1:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if transitions != 9 {
		t.Errorf("%d transitions in all", transitions)
	}
}
