package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
)

// BenchmarkScale answers, through the API, the overview dashboard (its statements as one
// query) over the last hour, day and 30 days, and the long-period statements, over
// benchRecords() records spread over benchDays() days. Each reports the first answer after
// loading (first-ms, before the period is in DuckDB's buffers) beside the warm ns/op, the
// process's peak resident memory, the data directory's size on disk, and the rate at which the
// records were loaded (straight into the store, in batches of 100,000). With
// FNAPI_BENCH_CAPTURE=1 the TCP records carry srt samples and histograms (withCapture).
func BenchmarkScale(b *testing.B) {
	c, n := loadService(b)
	overview := app.OverviewQueries()
	with := func(since string) string {
		out := make([]string, len(overview))
		for i, q := range overview {
			out[i] = q + " SINCE " + since
		}
		return strings.Join(out, "; ")
	}
	// The loaded records end where the load started, so that the @now statements read no
	// record at the newest end of their day. A live service's day ends seconds after its
	// newest record: the _live ones read the day that ends 30 seconds after the newest loaded.
	newest, _, err := loaded.app.Records().Newest(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	live := fmt.Sprintf(" SINCE %d UNTIL %d", newest+30-86400, newest+30)
	queries := []struct{ name, expr string }{
		{"overview_1h", with("@now-3600")},
		{"overview_24h", with("@now-86400")},
		{"overview_30d", with("@now-2592000")},
		{"traffic_by_application_30d", "traffic BY application SINCE @now-2592000"},
		{"traffic_by_time3600_30d", "traffic BY time(3600) SINCE @now-2592000"},
		// Percentiles and averages read the rollups' histograms and sums (DuckDB's rollups
		// keep them): set FNAPI_BENCH_CAPTURE=1 for records with srt samples.
		{"traffic_by_application_24h", "traffic BY application SINCE @now-86400"},
		{"srt_by_application_24h", "srt BY application SINCE @now-86400"},
		{"p95_srt_by_application_24h", "p95(srt) BY application SINCE @now-86400"},
		{"traffic_by_application_24h_live", "traffic BY application" + live},
		{"p95_srt_by_application_24h_live", "p95(srt) BY application" + live},
	}
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			call := func() {
				var res []json.RawMessage
				if err := c.Call(context.Background(), "query", map[string]any{"expr": q.expr}, &res); err != nil {
					b.Fatal(err)
				}
			}
			start := time.Now()
			call()
			first := time.Since(start)
			for b.Loop() {
				call()
			}
			b.ReportMetric(float64(first.Milliseconds()), "first-ms")
			b.ReportMetric(float64(n), "records")
			b.ReportMetric(peakRSS(), "peak-RSS-MiB")
			b.ReportMetric(dirSize(loaded.dir)/(1<<20), "disk-MiB")
			b.ReportMetric(loaded.rate, "load-records/s")
		})
	}
}

// dirSize is the size in bytes of the files under dir.
func dirSize(dir string) float64 {
	var total int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return float64(total)
}

// BenchmarkPercentileRatio measures issue 24's query goal in one run: `p95(srt) BY
// application` within 1.5 times `traffic BY application`, both over BenchmarkScale's live day
// (set FNAPI_BENCH_CAPTURE=1 for records with srt samples). Each iteration answers both,
// through the API and through the query engine alone (pvql over the store: no HTTP, JSON or
// authentication), in turn, so that a machine's changing load weighs on all four alike; it
// reports each one's median in ms and the two ratios.
func BenchmarkPercentileRatio(b *testing.B) {
	c, _ := loadService(b)
	ctx := context.Background()
	newest, _, err := loaded.app.Records().Newest(ctx)
	if err != nil {
		b.Fatal(err)
	}
	live := fmt.Sprintf(" SINCE %d UNTIL %d", newest+30-86400, newest+30)
	engine := pvql.New(loaded.app.Records())
	type way struct {
		name string
		call func(expr string) error
	}
	ways := []way{
		{"api", func(expr string) error {
			var res []json.RawMessage
			return c.Call(ctx, "query", map[string]any{"expr": expr}, &res)
		}},
		{"engine", func(expr string) error {
			_, err := engine.Query(ctx, expr, time.Now(), 0)
			return err
		}},
	}
	exprs := []string{"traffic BY application" + live, "p95(srt) BY application" + live}
	took := make([][]time.Duration, len(ways)*len(exprs))
	for b.Loop() {
		for i, w := range ways {
			for j, expr := range exprs {
				start := time.Now()
				if err := w.call(expr); err != nil {
					b.Fatal(err)
				}
				took[i*len(exprs)+j] = append(took[i*len(exprs)+j], time.Since(start))
			}
		}
	}
	for i, w := range ways {
		traffic, p95 := median(took[i*len(exprs)]), median(took[i*len(exprs)+1])
		b.ReportMetric(traffic, w.name+"-traffic-ms")
		b.ReportMetric(p95, w.name+"-p95-ms")
		b.ReportMetric(p95/traffic, w.name+"-ratio")
	}
}

// median is the median of ds in ms.
func median(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)/2]) / float64(time.Millisecond)
}
