package app_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/demo"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// BenchmarkFollowOverview has clients_N clients follow the overview dashboard (its widgets'
// queries as one expression over the default hour, answered every second) over
// benchRecords() records, and reports the process's CPU time per interval once every client
// has its first answer: clients following the same query share one computation, so 50 should
// cost about what one does. Each op is one more answer received by every client. With
// _ingesting, records arrive meanwhile as they did over the day loaded (the demo generator
// at the same rate, ingested every 250 ms), and their ingest counts in the CPU time.
func BenchmarkFollowOverview(b *testing.B) {
	c, _ := loadService(b)
	expr := strings.Join(app.OverviewQueries(), "; ")
	for _, v := range []struct {
		n      int
		ingest bool
	}{{1, false}, {50, false}, {1, true}, {50, true}} {
		name := "clients_" + strconv.Itoa(v.n)
		if v.ingest {
			name += "_ingesting"
		}
		n := v.n
		b.Run(name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if v.ingest {
				go ingestLive(ctx, b)
			}
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

// ingestLive ingests the demo generator's records every 250 ms, at the rate of those loaded,
// until ctx ends.
func ingestLive(ctx context.Context, b *testing.B) {
	g := demo.New(time.Now(), demo.Options{Seed: 1 << 20, Rate: loaded.genRate, Plain: true})
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if recs := g.Until(time.Now()); len(recs) > 0 {
			if err := loaded.app.Records().Ingest(ctx, recs); err != nil && ctx.Err() == nil {
				b.Error(err)
				return
			}
		}
	}
}
