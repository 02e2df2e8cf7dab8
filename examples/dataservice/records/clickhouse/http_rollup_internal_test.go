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
	const from = int64(1_699_992_000)
	const span = 14 * 3600 // two whole buckets of 6 hours at least
	rng := rand.New(rand.NewPCG(42, 12))
	for range 4 { // several inserts, so that rows of one bucket and keys repeat
		recs := recordstest.HTTPRequests(rng, from, span, 1500)
		if err := s.Ingest(ctx, recs); err != nil {
			t.Fatal(err)
		}
	}
	q := &records.Query{Layer: records.LayerHTTP, Groups: []records.Group{{Column: records.ColHTTPHost}},
		Sums: []records.Sum{records.SumRecords, records.SumSRTSamples}, Hists: []records.Column{records.ColSRTHist}}
	recordsOnly := func(qs ...*records.Query) *records.Plan { return records.Compile(chDialect, s.table, nil, qs) }
	check := func(s *Store, when string) {
		t.Helper()
		if p := s.Compile(q); !reflect.DeepEqual(tables(p), []string{"records", "records_http_minute", "records_http_10min", "records_http_hour", "records_http_6hour"}) {
			t.Fatalf("%s: the percentile reads %v", when, tables(p))
		}
		for i := range 15 {
			lo := from - 100 + rng.Int64N(span)
			hi := lo + rng.Int64N(from+span+100-lo)
			if i%3 == 0 { // nearly the whole span: every width
				lo, hi = from-1000+rng.Int64N(2000), from+span-1000+rng.Int64N(2000)
			}
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

// tables returns the tables p's SQL reads, in the order the rollups' widths give (the records
// first).
func tables(p *records.Plan) []string {
	out := []string{}
	for _, t := range []string{"records", "records_http_minute", "records_http_10min", "records_http_hour", "records_http_6hour"} {
		if strings.Contains(p.SQL(), "FROM "+t+" ") {
			out = append(out, t)
		}
	}
	return out
}
