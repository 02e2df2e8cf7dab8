package clickhouse

import (
	"context"
	"testing"

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
