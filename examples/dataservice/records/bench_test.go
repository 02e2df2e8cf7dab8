package records_test

import (
	"encoding/json"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// BenchmarkParseBatch measures ParseBatch on batches of 10,000 records as the API's ingest
// function receives them (JSON, a fifth with IPv6 clients); records/s is the figure to watch.
func BenchmarkParseBatch(b *testing.B) {
	const batch = 10000
	raw := make([]json.RawMessage, batch)
	for i, r := range recordstest.Sample(batch, 1700000000-batch) {
		var err error
		if raw[i], err = json.Marshal(r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := records.ParseBatch(raw, testNow); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "records/s")
}
