package app_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// BenchmarkFollowOverview has clients_N clients follow the overview dashboard (its widgets'
// queries as one expression over the default hour, answered every second) over
// benchRecords() records, and reports the process's CPU time per interval once every client
// has its first answer: clients following the same query share one computation, so 50 should
// cost about what one does. Each op is one more answer received by every client.
func BenchmarkFollowOverview(b *testing.B) {
	c, _ := loadService(b)
	expr := strings.Join(app.OverviewQueries(), "; ")
	for _, n := range []int{1, 50} {
		b.Run("clients_"+strconv.Itoa(n), func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var first sync.WaitGroup
			first.Add(n)
			answers := make(chan struct{}, 16*n)
			for range n {
				go func() {
					full := false
					for chunk, err := range c.Stream(ctx, "query", map[string]any{"expr": expr, "follow": true, "interval": 1}) {
						if err != nil {
							if ctx.Err() == nil {
								b.Error(err)
							}
							break
						}
						var ch struct {
							Progress float64 `json:"progress"`
						}
						json.Unmarshal(chunk, &ch)
						switch {
						case full:
							answers <- struct{}{}
						case ch.Progress == 1:
							full = true
							first.Done()
						}
					}
				}()
			}
			first.Wait()
			start := testenv.CPUTime()
			for b.Loop() {
				for range n {
					<-answers
				}
			}
			b.ReportMetric((testenv.CPUTime()-start).Seconds()*1000/float64(b.N), "cpu-ms/interval")
		})
	}
}
