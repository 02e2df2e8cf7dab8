package alerts_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/internal/testutil"
)

// BenchmarkDetectionLatency measures the detection latency: from the return of the Ingest of
// records that cross a rule's threshold to the arrival of the firing notification at a real
// HTTPS webhook receiver, with the evaluator running as the service runs it (Evaluator.Run)
// and the rule's interval the shortest (10 s) or the default (60 s); alone, or among 9,999
// other rules of BenchmarkEvaluate's mixed set every 60 s, its query sharing a shape with
// many of them (answered first) or of a shape of its own (answered last). The store holds
// benchRecords() records (as BenchmarkEvaluate's), and new records arrive every second at
// their rate. Each iteration is a burst from a server of its own (an alert of its own) at a
// random moment of the interval, as traffic comes; the metrics are the mean and the longest
// latency in seconds.
//
//	go test -run '^$' -bench DetectionLatency -benchtime 5x ./alerts/
func BenchmarkDetectionLatency(b *testing.B) {
	recs, _ := benchStore(b, benchRecords())
	streamRecords(b, recs, max(benchRecords()/86400, 1))
	for _, others := range []int{0, 9999} {
		for _, interval := range []time.Duration{10 * time.Second, time.Minute} {
			for _, q := range []string{latencyShared, latencyOwn} {
				if others == 0 && q == latencyOwn {
					continue // alone, both are the same
				}
				name := map[string]string{latencyShared: "shared", latencyOwn: "own"}[q]
				b.Run(fmt.Sprintf("rules=%d/interval=%v/%s", others+1, interval, name), func(b *testing.B) {
					latency(b, recs, others, interval, q)
				})
			}
		}
	}
}

// The queries of the rule whose latency is measured: one of the shape that half of
// BenchmarkEvaluate's rules share, answered first in each evaluation, and one of a shape of
// its own, created last and so answered last: the longest an evaluation makes a rule wait.
const (
	latencyShared = "traffic BY server.ip HAVING traffic > 1e6 SINCE @now-300"
	latencyOwn    = "traffic WHERE server.ip IN 10.2.0.0/16 BY server.ip HAVING traffic > 1e6 SINCE @now-300"
)

// bursts counts the bursts of BenchmarkDetectionLatency, which share one store.
var bursts atomic.Int32

func latency(b *testing.B, recs *duckdb.Store, others int, interval time.Duration, query string) {
	rcv := newReceiver(b, "s3cret")
	e := envOver(b, recs, rcv.options(), true)
	ctx, cancel := context.WithCancel(context.Background())
	benchRules(b, e, others, false, nil)
	if _, err := e.st.CreateRule(ctx, state.AlertRule{Name: "burst", Interval: interval,
		Query:  query,
		Notify: notify(b, alerts.Channel{Webhook: rcv.srv.URL, Secret: "s3cret"})}, others+1); err != nil {
		b.Fatal(err)
	}
	if err := e.ev.Tick(ctx, time.Now()); err != nil { // the first round, which reads whole windows
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() { e.ev.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	var total, longest time.Duration
	i := 0
	for b.Loop() {
		// A sleep, not a wait: the burst comes at a random moment of the interval, as a real
		// one does, for the latency measured to be a user's.
		time.Sleep(rand.N(interval))
		i++
		n := bursts.Add(1) // a server no earlier burst in the store had
		server := netip.AddrFrom4([4]byte{10, 2, byte(n >> 8), byte(n)})
		burst := records.Record{Time: time.Now().Unix(), Protocol: records.TCP, Application: "https",
			Client: records.Endpoint{IP: netip.MustParseAddr("10.9.9.9"), Port: 50000, Bytes: 100},
			Server: records.Endpoint{IP: server, Port: 443, Bytes: 2e6}}
		ingest(b, recs, []records.Record{burst})
		ingested := time.Now()
		d := rcv.await(b, `["`+server.String()+`"]`, 2*interval+time.Minute).Sub(ingested)
		total += d
		longest = max(longest, d)
	}
	b.ReportMetric(total.Seconds()/float64(i), "s-mean")
	b.ReportMetric(longest.Seconds(), "s-max")
}

// streamRecords ingests perSecond records of genRecords every second, stamped with the
// current second, until the benchmark ends.
func streamRecords(b *testing.B, recs *duckdb.Store, perSecond int) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	b.Cleanup(func() { close(stop); wg.Wait() })
	wg.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				s := now.Unix()
				if err := recs.Ingest(context.Background(), genRecords(s, s+1, perSecond, uint64(s))); err != nil {
					b.Error(err)
					return
				}
			}
		}
	})
}

// await returns when the receiver acknowledged the firing of group, or fails after timeout.
func (r *receiver) await(t testing.TB, group string, timeout time.Duration) time.Time {
	t.Helper()
	var at time.Time
	testutil.Until(t, timeout, "the firing of "+group, func() error {
		got, _, _ := r.deliveries()
		for _, d := range got {
			if d.State == alerts.Firing && string(d.Group) == group {
				at = d.received
				return nil
			}
		}
		return errors.New("not acknowledged yet")
	})
	return at
}
