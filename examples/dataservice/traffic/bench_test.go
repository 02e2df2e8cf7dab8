package traffic

import (
	"encoding/json"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
)

// BenchmarkQueryChunk encodes one chunk of the query function as the transport sends it: a
// month of BY time(60), 43,200 rows of a time and a value, turned from pvql's results into
// api's and marshaled to JSON.
func BenchmarkQueryChunk(b *testing.B) {
	rows := make([]pvql.Row, 43_200)
	for i := range rows {
		rows[i] = pvql.Row{Keys: []any{int64(1_700_000_000 + i*60)}, Values: []float64{float64(i) * 1234.5}}
	}
	res := []pvql.Result{{Data: rows, Meta: pvql.Meta{AccumulatedTime: 30 * 86400, Elapsed: 0.25}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(api.Chunk{Result: apiResults(res), Progress: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
