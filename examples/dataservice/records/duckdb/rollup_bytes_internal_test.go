package duckdb

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// TestHTTPRollupHistsAsBytes checks the HTTP layer's rollups, which keep their histograms as
// bytes (records.Rollup.HistBytes): a percentile's histograms read through them equal the
// requests' over periods that cut their buckets, as ingest wrote them, after every rollup is
// compacted (merged in SQL), and in a file of schema version 17 (their histograms arrays of
// entries) once step 18 has converted it; the step leaves each column BLOB; and a corrupt
// value fails the query that reads it.
func TestHTTPRollupHistsAsBytes(t *testing.T) {
	t.Parallel()
	stepByHand(t)
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	from, span := recordstest.HTTPFrom, recordstest.HTTPSpan
	recordstest.IngestHTTPRequests(t, s, rand.New(rand.NewPCG(42, 18)))
	rng := rand.New(rand.NewPCG(42, 19))
	qs := []*records.Query{
		{Layer: records.LayerHTTP, Groups: []records.Group{{Column: records.ColHTTPHost}}, Sums: []records.Sum{records.SumRecords}, Hists: []records.Column{records.ColSRTHist}},
		{Layer: records.LayerHTTP, Groups: []records.Group{{Column: records.ColHTTPStatus}}, Sums: []records.Sum{records.SumSRTSamples}, Hists: []records.Column{records.ColSRTHist, records.ColDTTHist}},
	}
	check := func(when string) {
		t.Helper()
		for i := range 20 {
			lo, hi := recordstest.HTTPPeriod(rng, i%4 == 0)
			for _, q := range qs {
				if raw, rolled := sumsBy(t, s, lo, hi, true, q), sumsBy(t, s, lo, hi, false, q); !reflect.DeepEqual(raw, rolled) {
					t.Fatalf("%s: %+v over [%d, %d): with the rollups %v, from the records %v", when, q, lo, hi, rolled, raw)
				}
			}
		}
	}
	check("ingested")
	for i := range s.rollups {
		if r := &s.rollups[i]; r.HistBytes {
			if _, err := compact(ctx, r, s.db, records.FloorTo(from, r.Width), from+span); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("compacted")
	// The file as version 17 left it: the rollups as step 16 made them, their histograms arrays
	// of entries (default empty), summed from the records.
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range httpRollups {
		if _, err := tx.ExecContext(ctx, "DROP TABLE "+r.Table); err != nil {
			t.Fatal(err)
		}
	}
	if err := ensureRollups(ctx, tx, unmeasured(httpRollups)); err != nil {
		t.Fatal(err)
	}
	if err := rollupMeasures(ctx, tx, httpRollups, false); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, r := range httpRollups {
		r.HistBytes = false
		exec(t, s, "DELETE FROM "+r.Table+"; "+insertSums(&r, "records", ofLayer(&r, "true")))
	}
	exec(t, s, "UPDATE "+schemaTable+" SET version = 17")
	s.Close()
	if s, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, r := range httpRollups {
		q := "SELECT count(*) FROM information_schema.columns WHERE table_name = '" + r.Table + "' AND column_name LIKE '%_hist' AND data_type = 'BLOB'"
		if n := count(t, s, q); n != len(records.RollupHists) {
			t.Errorf("%s: %d histogram columns of bytes after step 18, want %d", r.Table, n, len(records.RollupHists))
		}
	}
	check("migrated")
	// A corrupt value (not a whole entry) fails the query that reads it, with no answer.
	exec(t, s, "UPDATE records_http_6hour SET srt_hist = from_hex('00')")
	err = s.Read(ctx, s.Compile(qs[0]), from, from+span, func(*records.Row) error { return nil })
	if !errors.Is(err, records.ErrHistBytes) {
		t.Errorf("a query over a corrupt histogram: %v, want ErrHistBytes", err)
	}
}
