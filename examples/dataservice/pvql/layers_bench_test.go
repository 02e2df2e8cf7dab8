package pvql

import (
	"context"
	"math/rand/v2"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
)

// BenchmarkLayerPercentileRatio measures issue 42's query goal: `p95(srt) BY http.host FROM
// http` within 1.6 times `records BY http.host FROM http`, over a day of HTTP requests
// (FNAPI_BENCH_LAYER_RECORDS, default 1,000,000; the figure is 10,000,000) from 200
// hosts in time order as a probe sends them, each with one srt sample and its histogram,
// beside as many transport records, on
// DuckDB, through the query engine alone. Each iteration answers both in turn; it reports each
// one's median in ms and their ratio.
func BenchmarkLayerPercentileRatio(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("FNAPI_BENCH_LAYER_RECORDS")); err == nil && v > 0 {
		n = v
	}
	s, err := duckdb.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const day = 86400
	now := time.Unix(testNow, 0)
	rng := rand.New(rand.NewPCG(42, 7))
	batch := make([]records.Record, 0, 100_000)
	for i := 0; i < n; i += cap(batch) {
		batch = batch[:0]
		for j := 0; j < min(cap(batch), n-i); j++ {
			h := rng.IntN(200)
			r := records.Record{Time: testNow - day + int64(i+j)*day/int64(n), Protocol: records.TCP, Application: "http",
				Client: records.Endpoint{IP: netip.AddrFrom4([4]byte{10, 1, byte(h), byte(j)}), Port: 40000, Bytes: 400, Packets: 3},
				Server: records.Endpoint{IP: netip.AddrFrom4([4]byte{192, 0, 2, byte(h)}), Port: 80, Bytes: 9000, Packets: 8},
				Layer:  records.LayerHTTP,
				HTTP:   records.HTTP{Method: "GET", Status: 200, Host: "host" + strconv.Itoa(h) + ".example", Path: "/api/items/{n}"}}
			r.SRT.Add(time.Duration(1+rng.IntN(2000)) * time.Millisecond)
			t := r
			t.Layer, t.HTTP = records.LayerTransport, records.HTTP{}
			batch = append(batch, r, t)
		}
		if err := s.Ingest(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.CatchUp(context.Background()); err != nil {
		b.Fatal(err)
	}
	engine := New(s)
	exprs := []string{"records BY http.host FROM http", "p95(srt) BY http.host FROM http"}
	var took [2][]time.Duration
	b.ResetTimer()
	for b.Loop() {
		for i, expr := range exprs {
			start := time.Now()
			res, err := engine.Query(context.Background(), expr, now, day*time.Second)
			if err != nil || len(res[0].Data) != 200 {
				b.Fatalf("%s: %v", expr, err)
			}
			took[i] = append(took[i], time.Since(start))
		}
	}
	med := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2]) / float64(time.Millisecond)
	}
	records, p95 := med(took[0]), med(took[1])
	b.ReportMetric(records, "records-ms")
	b.ReportMetric(p95, "p95-ms")
	b.ReportMetric(p95/records, "ratio")
	b.ReportMetric(float64(n), "requests")
}
