package clickhouse

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// TestHTTPRollupsClickHouse checks the HTTP layer's rollups on ClickHouse: a percentile's
// histograms and the sums read through them equal the requests' over periods that cut their
// buckets of 10 minutes, hours and 6 hours, as the views wrote them and after their parts
// are merged; and a server at schema version 11 (no rollup per 10 minutes) upgraded at open
// has it, summed from the requests it already held.
func TestHTTPRollupsClickHouse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := testenv.ClickHouse(t)
	s := OpenClickHouseTest(t, srv.URL, "")
	recordstest.IngestHTTPRequests(t, s, rand.New(rand.NewPCG(42, 12)))
	rng := rand.New(rand.NewPCG(42, 13))
	q := &records.Query{Layer: records.LayerHTTP, Groups: []records.Group{{Column: records.ColHTTPHost}},
		Sums: []records.Sum{records.SumRecords, records.SumSRTSamples}, Hists: []records.Column{records.ColSRTHist}}
	recordsOnly := func(qs ...*records.Query) *records.Plan { return records.Compile(chDialect, s.table, nil, qs) }
	check := func(s *Store, when string) {
		t.Helper()
		sql := s.Compile(q).SQL()
		tables := []string{"records"}
		for _, r := range chHTTPRollups {
			tables = append(tables, r.Table)
		}
		for _, table := range tables {
			if !strings.Contains(sql, "FROM "+table+" ") {
				t.Fatalf("%s: the percentile does not read %s: %s", when, table, sql)
			}
		}
		for i := range 15 {
			lo, hi := recordstest.HTTPPeriod(rng, i%3 == 0)
			raw := recordstest.SumsBy(t, s, recordsOnly, lo, hi, true, q)
			if rolled := recordstest.SumsBy(t, s, recordsOnly, lo, hi, false, q); !reflect.DeepEqual(raw, rolled) {
				t.Fatalf("%s: over [%d, %d): with the rollups %v, from the records %v", when, lo, hi, rolled, raw)
			}
		}
	}
	check(s, "as written")
	raw := RawClickHouse(t, srv.URL)
	for _, r := range chHTTPRollups {
		if err := raw.Exec(ctx, "OPTIMIZE TABLE "+r.Table+" FINAL"); err != nil {
			t.Fatal(err)
		}
	}
	check(s, "merged")
	s.Close()
	// Back to version 11: no rollup per 10 minutes.
	tenMin := &chHTTPRollups[3]
	for _, stmt := range []string{"DROP TABLE " + chView(tenMin), "DROP TABLE " + tenMin.Table} {
		if err := raw.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	SetVersionTest(t, raw, 11)
	s = OpenClickHouseTest(t, srv.URL, "")
	if v, err := schemaVersion(ctx, raw); err != nil || v != SchemaVersion {
		t.Errorf("schema version %d (%v) after the upgrade, want %d", v, err, SchemaVersion)
	}
	check(s, "upgraded from version 11")
}
