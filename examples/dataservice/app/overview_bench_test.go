package app_test

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// BenchmarkOverview answers the overview dashboard's statements over the last
// FNAPI_BENCH_PERIOD seconds (default 86400, 24 hours) of benchRecords() records through the
// API: all of them in one query (statement_all), which reads the records once, and each alone
// (statement_N), whose slowest the whole should stay close to. Besides the time of an answer
// it reports the CPU time the process (server and client) used for one, cpu-ms/op, which a
// loaded machine distorts less. FNAPI_BENCH_DASHBOARD, statements separated by ";", measures
// another dashboard the same way (the 3-statement one: see BENCHMARKS.md).
func BenchmarkOverview(b *testing.B) {
	c, n := loadService(b)
	period := 86400
	if p, err := strconv.Atoi(os.Getenv("FNAPI_BENCH_PERIOD")); err == nil && p > 0 {
		period = p
	}
	queries := app.OverviewQueries()
	if d := os.Getenv("FNAPI_BENCH_DASHBOARD"); d != "" {
		queries = strings.Split(d, ";")
	}
	var stmts []string
	for _, q := range queries {
		q = strings.TrimSpace(q)
		stmts = append(stmts, q+" SINCE @now-"+strconv.Itoa(period))
	}
	run := func(name, expr string) {
		b.Run(name, func(b *testing.B) {
			start := testenv.CPUTime()
			for b.Loop() {
				var res []json.RawMessage
				if err := c.Call(context.Background(), "query", map[string]any{"expr": expr}, &res); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "records")
			b.ReportMetric((testenv.CPUTime()-start).Seconds()*1000/float64(b.N), "cpu-ms/op")
		})
	}
	run("statement_all", strings.Join(stmts, "; "))
	for i, s := range stmts {
		run("statement_"+strconv.Itoa(i+1), s)
	}
}
