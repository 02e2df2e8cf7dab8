package app_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/app"
)

// BenchmarkOverview answers the overview dashboard's statements over the last 24 hours of
// benchRecords() records through the API: all of them in one query (statement_all), which
// reads the records once, and each alone (statement_N), whose slowest the whole should stay
// close to.
func BenchmarkOverview(b *testing.B) {
	c, n := loadService(b)
	var stmts []string
	for _, q := range app.OverviewQueries() {
		stmts = append(stmts, q+" SINCE @now-86400")
	}
	run := func(name, expr string) {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				var res []json.RawMessage
				if err := c.Call(context.Background(), "query", map[string]any{"expr": expr}, &res); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "records")
		})
	}
	run("statement_all", strings.Join(stmts, "; "))
	for i, s := range stmts {
		run("statement_"+strconv.Itoa(i+1), s)
	}
}
