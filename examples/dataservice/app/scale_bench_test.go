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

	"github.com/fnapi/fnapi/client"
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
	live := liveDay(b)
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
				if err := query(c, q.expr); err != nil {
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
	live := liveDay(b)
	engine := pvql.New(loaded.app.Records())
	ways := []struct {
		name string
		call func(expr string) error
	}{
		{"api", func(expr string) error { return query(c, expr) }},
		{"engine", func(expr string) error {
			_, err := engine.Query(context.Background(), expr, time.Now(), 0)
			return err
		}},
	}
	traffic, p95 := "traffic BY application"+live, "p95(srt) BY application"+live
	took := make([][2][]time.Duration, len(ways)) // by way: traffic's, the percentile's
	for b.Loop() {
		for i, w := range ways {
			for j, expr := range []string{traffic, p95} {
				start := time.Now()
				if err := w.call(expr); err != nil {
					b.Fatal(err)
				}
				took[i][j] = append(took[i][j], time.Since(start))
			}
		}
	}
	for i, w := range ways {
		traffic, p95 := median(took[i][0]), median(took[i][1])
		b.ReportMetric(traffic, w.name+"-traffic-ms")
		b.ReportMetric(p95, w.name+"-p95-ms")
		b.ReportMetric(p95/traffic, w.name+"-ratio")
	}
}

// liveDay is the period of the _live statements, as a query's SINCE and UNTIL clauses. The
// loaded records end where the load started, so that the @now statements read no record at
// the newest end of their day; a live service's day ends seconds after its newest record: this
// one ends 30 seconds after the newest loaded.
func liveDay(b *testing.B) string {
	newest, _, err := loaded.app.Records().Newest(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return fmt.Sprintf(" SINCE %d UNTIL %d", newest+30-86400, newest+30)
}

// query answers expr through c's API, the answer read and dropped.
func query(c *client.Client, expr string) error {
	var res []json.RawMessage
	return c.Call(context.Background(), "query", map[string]any{"expr": expr}, &res)
}

// median is the median of ds in ms.
func median(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)/2]) / float64(time.Millisecond)
}
