package alerts_test

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// BenchmarkEvaluate measures one evaluation of every rule, each with a query of its own
// (thresholds differ), over an hour of records from 200 servers, after a minute's worth of
// new records arrived: with live answers (DuckDB; each rule re-reads what arrived) and in
// full (ClickHouse's way). It reports the CPU time of the whole process per rule evaluated.
//
//	go test -run '^$' -bench Evaluate -benchtime 5x ./alerts/
func BenchmarkEvaluate(b *testing.B) {
	const records, servers = 100_000, 200
	for _, n := range []int{10, 100, 1000, 10_000} {
		for _, live := range []bool{true, false} {
			mode := map[bool]string{true: "live", false: "full"}[live]
			b.Run(fmt.Sprintf("rules=%d/%s", n, mode), func(b *testing.B) {
				e := openEnv(b, alerts.Options{}, live)
				ctx := context.Background()
				t0 := time.Now().Truncate(time.Minute).Add(-time.Hour)
				load(b, e, t0, records, servers)
				for i := range n {
					if _, err := e.st.CreateRule(ctx, state.AlertRule{Name: "r", Interval: time.Minute,
						Query: fmt.Sprintf("traffic BY server.ip HAVING traffic > %d SINCE @now-300", 10_000_000+i)}, n); err != nil {
						b.Fatal(err)
					}
				}
				now := t0.Add(time.Hour)
				if err := e.ev.Tick(ctx, now); err != nil { // the live answers' first read
					b.Fatal(err)
				}
				var cpu time.Duration
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					load(b, e, now, records/60, servers) // a minute of traffic
					now = now.Add(time.Minute)
					b.StartTimer()
					c := testenv.CPUTime()
					if err := e.ev.Tick(ctx, now); err != nil {
						b.Fatal(err)
					}
					cpu += testenv.CPUTime() - c
				}
				b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*n), "cpu-µs/rule")
			})
		}
	}
}

// load ingests n records over the minute or hour from t, spread over servers.
func load(b *testing.B, e *env, t time.Time, n, servers int) {
	span := int64(time.Hour / time.Second)
	if n < 100_000 {
		span = 60
	}
	recs := make([]records.Record, n)
	for i := range recs {
		recs[i] = records.Record{Time: t.Unix() + int64(i)%span, Protocol: 6, Application: "https",
			Client: records.Endpoint{IP: netip.AddrFrom4([4]byte{10, 9, byte(i >> 8), byte(i)}), Port: 50000, Bytes: 100},
			Server: records.Endpoint{IP: netip.AddrFrom4([4]byte{10, 0, 0, byte(i % servers)}), Port: 443, Bytes: 20_000}}
	}
	if err := e.records.Ingest(context.Background(), recs); err != nil {
		b.Fatal(err)
	}
}
