package alerts_test

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/internal/testutil"
)

// tarpit is a webhook receiver that accepts connections and never answers: not the TLS
// handshake, not a request.
func tarpit(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held, never read nor written
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "https://" + ln.Addr().String()
}

// run runs the evaluator as the service does (Evaluator.Run: evaluations and the sender)
// until the test ends.
func (e *env) run(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.ev.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// TestTarpitHoldsNoOne makes a plain user's 100 rules notify 10 webhooks each at tarpits
// (1,000 notifications, claimed before the administrator's), and checks that the
// administrator's notification to a receiver that answers still arrives while the tarpits
// hold every connection they get; and that the user's notifications past the bound of
// their queue are not attempted but put back (no attempt spent), counted, and say so on
// their channel.
func TestTarpitHoldsNoOne(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, "k")
	o := rcv.options()
	o.Backoff = time.Hour // the user's put back stay put: the test sees the first round
	e := newEnv(t, o)
	ctx := context.Background()
	var pits []alerts.Channel
	for i := range 10 {
		pits = append(pits, alerts.Channel{Webhook: tarpit(t) + fmt.Sprintf("/hook%d", i)})
	}
	q := "records HAVING records > 0 SINCE @now-60"
	for i := range 100 {
		if _, err := e.st.CreateRule(ctx, state.AlertRule{Name: fmt.Sprint("slow ", i), Owner: "mallory", Query: q,
			Interval: time.Hour, Notify: notify(t, pits...)}, 100); err != nil {
			t.Fatal(err)
		}
	}
	admin, err := e.st.CreateRule(ctx, state.AlertRule{Name: "busy", Owner: "admin", Query: q, Interval: time.Hour,
		Notify: notify(t, alerts.Channel{Webhook: rcv.srv.URL + "/hook", Secret: "k"})}, 100)
	if err != nil {
		t.Fatal(err)
	}
	e.traffic(t, time.Now().Unix()-1, "10.0.0.1", 1)
	e.run(t)
	testutil.Eventually(t, "the administrator's notification", func() bool {
		got, _, _ := rcv.deliveries()
		return len(got) == 1 && got[0].Rule.ID == admin.ID && got[0].State == alerts.Firing
	})
	// At most 200 of the user's wait in their queue (and 4 are under way): the others
	// were put back without spending an attempt, due again after the back-off.
	if n := e.svc.Deferred(); n < 500 || n > 800 {
		t.Fatalf("%d of the user's 1,000 notifications put back; want the 800 or so past the bound", n)
	}
	cs, err := e.st.Channels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	putBack := 0
	for _, c := range cs {
		if c.Rule != admin.ID && c.Attempts == 0 && !c.Done && strings.Contains(c.Error, "not attempted") {
			putBack++
		}
	}
	if putBack == 0 {
		t.Fatalf("none of the %d channels of the user's rules says its notification was put back", len(cs))
	}
}

// TestDestinationQueueBound sends 150 notifications of one owner to one tarpit: 100 wait in
// the destination's queue (2 of them under way) and the others are put back (no
// attempt spent, due after the back-off): no more is held in memory for one destination.
func TestDestinationQueueBound(t *testing.T) {
	t.Parallel()
	o := alerts.Options{Backoff: time.Hour, WebhookAllow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	e := newEnv(t, o)
	ctx := context.Background()
	pit := tarpit(t)
	q := "records HAVING records > 0 SINCE @now-60"
	for i := range 150 {
		if _, err := e.st.CreateRule(ctx, state.AlertRule{Name: fmt.Sprint("slow ", i), Owner: "bob", Query: q,
			Interval: time.Hour, Notify: notify(t, alerts.Channel{Webhook: pit + "/hook"})}, 1000); err != nil {
			t.Fatal(err)
		}
	}
	e.traffic(t, time.Now().Unix()-1, "10.0.0.1", 1)
	e.run(t)
	testutil.Eventually(t, "150 notifications claimed", func() bool { return e.svc.Deferred() >= 40 })
	if n := e.svc.Deferred(); n > 50 {
		t.Fatalf("%d put back; want at most the 50 past the queue's 100", n)
	}
}
