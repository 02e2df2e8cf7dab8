package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/app"
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
