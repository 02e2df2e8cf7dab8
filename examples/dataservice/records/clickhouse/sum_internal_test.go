package clickhouse

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// TestSumsSaturateClickHouse is TestSumsSaturateDuckDB on ClickHouse: its records, and its
// rollups after their parts are merged (where a SummingMergeTree adds the rows up).
func TestSumsSaturateClickHouse(t *testing.T) {
	t.Parallel()
	srv := testenv.ClickHouse(t)
	s := OpenClickHouseTest(t, srv.URL, "")
	recs := recordstest.SumRecords()
	recordstest.IngestSums(t, s, recs)
	recordstest.CheckSums(t, s, func(qs ...*records.Query) *records.Plan { return records.Compile(chDialect, s.table, nil, qs) }, recs)
	raw := RawClickHouse(t, srv.URL)
	for _, r := range chRollups {
		if err := raw.Exec(context.Background(), "OPTIMIZE TABLE "+r.Table+" FINAL"); err != nil {
			t.Fatal(err)
		}
	}
	recordstest.CheckSums(t, s, func(qs ...*records.Query) *records.Plan { return records.Compile(chDialect, s.table, nil, qs) }, recs)
}

// TestHistsSaturateClickHouse checks that a histogram's count saturates at MaxHistCount alike
// from the records and from the rollups, before and after their parts are merged: 3,000
// records of MaxCount samples in one bucket, whose counts would wrap a UInt64 around.
func TestHistsSaturateClickHouse(t *testing.T) {
	t.Parallel()
	srv := testenv.ClickHouse(t)
	s := OpenClickHouseTest(t, srv.URL, "")
	recs := recordstest.SumRecords()[:3000]
	for i := range recs {
		recs[i].SRT = records.Timing{Sum: records.MaxCount, Samples: records.MaxCount}
	}
	recordstest.IngestSums(t, s, recs)
	var h histogram.Histogram
	h.AddIndex(recs[0].SRT.Buckets().Buckets()[0].Index, records.MaxHistCount)
	q := &records.Query{Groups: []records.Group{{Column: records.ColApplication}}, Sums: []records.Sum{records.SumRecords}, Hists: []records.Column{records.ColSRTHist}}
	want := map[string][]uint64{fmt.Sprint(0, []records.Value{{Str: "https"}}): records.EncodeHist([]uint64{2049, 1}, h),
		fmt.Sprint(0, []records.Value{{Str: "ssh"}}): records.EncodeHist([]uint64{951, 1}, h)}
	recordsOnly := func(qs ...*records.Query) *records.Plan { return records.Compile(chDialect, s.table, nil, qs) }
	check := func(when string) {
		for _, raw := range []bool{true, false} {
			if got := recordstest.SumsBy(t, s, recordsOnly, recordstest.SumHour, recordstest.SumHour+3600, raw, q); !reflect.DeepEqual(got, want) {
				t.Errorf("%s, from the records alone %v: %v, want %v", when, raw, got, want)
			}
		}
	}
	check("as ingested")
	raw := RawClickHouse(t, srv.URL)
	for _, r := range chRollups {
		if err := raw.Exec(context.Background(), "OPTIMIZE TABLE "+r.Table+" FINAL"); err != nil {
			t.Fatal(err)
		}
	}
	check("merged")
}
