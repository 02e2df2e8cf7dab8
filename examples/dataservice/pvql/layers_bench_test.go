package pvql

import (
	"context"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/clickhouse"
	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
)

// BenchmarkLayerPercentileRatio measures issue 42's query goal: `p95(srt) BY http.host FROM
// http` within 1.6 times `records BY http.host FROM http`, over a day of HTTP requests
// (FNAPI_BENCH_LAYER_RECORDS, default 1,000,000; the figure is 10,000,000) from 200
// hosts in time order as a probe sends them, each with one srt sample and its histogram,
// beside as many transport records, through the query engine alone. Each iteration answers
// both in turn; it reports each one's median in ms and their ratio.
//
// The records go to DuckDB, or with FNAPI_BENCH_CLICKHOUSE to ClickHouse: a URL
// (clickhouse://127.0.0.1:9000/bench42, an empty database), or 1 for a server of its own
// (internal/testenv: Debian's 18.16). With FNAPI_BENCH_DIR the DuckDB file (or, with a URL,
// the ClickHouse database) is loaded once and kept: a later run with the same count reads it.
func BenchmarkLayerPercentileRatio(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("FNAPI_BENCH_LAYER_RECORDS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	dir, kept := os.Getenv("FNAPI_BENCH_DIR"), true
	if dir == "" {
		dir, kept = b.TempDir(), false
	}
	var s records.Store
	var err error
	switch ch := os.Getenv("FNAPI_BENCH_CLICKHOUSE"); {
	case ch == "1":
		s, err = clickhouse.Open(ctx, testenv.ClickHouse(b).URL, "")
		kept = false
	case strings.HasPrefix(ch, "clickhouse://"):
		s, err = clickhouse.Open(ctx, ch, "")
	default:
		s, err = duckdb.Open(ctx, dir)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	done := filepath.Join(dir, "layer-bench-"+strconv.Itoa(n))
	if _, err := os.Stat(done); !kept || err != nil {
		loadLayerBench(b, s, n)
		if kept {
			if err := os.WriteFile(done, nil, 0o600); err != nil {
				b.Fatal(err)
			}
		}
	}
	const day = 86400
	now := time.Unix(testNow, 0)
	engine := New(s)
	exprs := []string{"records BY http.host FROM http", "p95(srt) BY http.host FROM http"}
	var took [2][]time.Duration
	b.ResetTimer()
	for b.Loop() {
		for i, expr := range exprs {
			start := time.Now()
			res, err := engine.Query(ctx, expr, now, day*time.Second)
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

// loadLayerBench stores BenchmarkLayerPercentileRatio's n requests and n transport records
// into s, in batches of 100,000 of each.
func loadLayerBench(b *testing.B, s records.Store, n int) {
	const day = 86400
	rng := rand.New(rand.NewPCG(42, 7))
	const per = 100_000 // requests a batch, beside as many transport records
	batch := make([]records.Record, 0, 2*per)
	for i := 0; i < n; i += per {
		batch = batch[:0]
		for j := 0; j < min(per, n-i); j++ {
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
	if c, ok := s.(interface{ CatchUp(context.Context) error }); ok {
		if err := c.CatchUp(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
