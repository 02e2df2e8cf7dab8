package duckdb

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// TestHTTPRollupHistsAsBytes checks the HTTP layer's rollups, which keep their histograms as
// bytes (records.Rollup.HistBytes): a percentile's histograms read through them equal the
// requests' over periods that cut their buckets, as ingest wrote them, after every rollup is
// compacted (merged in SQL), and in a file of schema version 17 (their histograms arrays of
// entries) once steps 18 and 19 have converted it; the steps leave each column BLOB, each
// value the bytes AppendHistBytes writes (also those SQL merged), and run again (a file whose
// version was lost) leave them so; and a corrupt value fails the query that reads it.
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
	narrow(t, s, "compacted")
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
	defer func() { s.Close() }()
	for _, r := range httpRollups {
		q := "SELECT count(*) FROM information_schema.columns WHERE table_name = '" + r.Table + "' AND column_name LIKE '%_hist' AND data_type = 'BLOB'"
		if n := count(t, s, q); n != len(records.RollupHists) {
			t.Errorf("%s: %d histogram columns of bytes after step 18, want %d", r.Table, n, len(records.RollupHists))
		}
	}
	check("migrated")
	narrow(t, s, "migrated")
	exec(t, s, "UPDATE "+schemaTable+" SET version = 0") // the version lost: every step again
	s.Close()
	if s, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	check("migrated again")
	narrow(t, s, "migrated again")
	// A corrupt value (not a whole entry) fails the query that reads it, with no answer.
	exec(t, s, "UPDATE records_http_6hour SET srt_hist = from_hex('00')")
	err = s.Read(ctx, s.Compile(qs[0]), from, from+span, func(*records.Row) error { return nil })
	if !errors.Is(err, records.ErrHistBytes) {
		t.Errorf("a query over a corrupt histogram: %v, want ErrHistBytes", err)
	}
}

// narrow checks that every histogram of the HTTP layer's rollups holds the bytes that
// AppendHistBytes writes for it, entries in the fewest bytes that hold the largest.
func narrow(t *testing.T, s *Store, when string) {
	t.Helper()
	n := 0
	for _, r := range httpRollups {
		for _, c := range records.RollupHists {
			rows, err := s.db.Query("SELECT " + c.Name() + " FROM " + r.Table)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var b []byte
				if err := rows.Scan(&b); err != nil {
					t.Fatal(err)
				}
				var counts [histogram.Buckets]uint64
				if err := records.AddHistBytes(&counts, b); err != nil {
					t.Fatalf("%s: %s.%s: %x: %v", when, r.Table, c.Name(), b, err)
				}
				var h histogram.Histogram
				h.AddCounts(&counts)
				if want := records.AppendHistBytes(nil, h); !bytes.Equal(b, want) {
					t.Fatalf("%s: %s.%s holds %x, want %x", when, r.Table, c.Name(), b, want)
				}
				n += len(b)
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n == 0 {
		t.Fatalf("%s: no histogram bytes", when)
	}
}
