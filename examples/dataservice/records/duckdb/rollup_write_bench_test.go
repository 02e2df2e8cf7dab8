package duckdb

import (
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// BenchmarkSumBatches measures summing a batch into the rows of every rollup in Go, as each
// ingest does before it appends them (sumBatches): 10,000 sample records (recordstest.Sample)
// over 2.8 hours with a context, every rollup summed from the records or a finer one.
func BenchmarkSumBatches(b *testing.B) {
	recs := recordstest.Sample(10000, 1700000000)
	for i := range recs {
		recs[i].Client.Place = records.Place{Zone: []string{"", "lan", "dmz"}[i%3]}
		recs[i].Server.Place = records.Place{Zone: "dc", ASN: uint32(15169 + i%4), ASName: "AS", Country: "US"}
	}
	marks := make([]int64, len(duckRollups))
	for i := range marks {
		marks[i] = 1 << 40
	}
	batches := [][]records.Record{recs}
	for b.Loop() {
		sumBatches(duckRollups, marks, batches)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/record")
}
