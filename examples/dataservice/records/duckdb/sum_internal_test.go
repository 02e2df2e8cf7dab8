package duckdb

import (
	"context"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// TestSumsSaturateDuckDB checks that sums past MaxSum answer MaxSum, and those below it
// exactly, from DuckDB's records and every rollup (those kept in each ingest, the background
// ones once rolled up, after a compaction), rather than failing the read or wrapping around.
func TestSumsSaturateDuckDB(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	recs := recordstest.SumRecords()
	recordstest.IngestSums(t, s, recs)
	if err := s.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := range s.rollups {
		if r := &s.rollups[i]; r.Background && s.marks.of(r) < recordstest.SumHour+3600 {
			t.Fatalf("%s rolled up to %d only", r.Table, s.marks.of(r))
		}
	}
	recordstest.CheckSums(t, s, recordsOnly, recs)
	for i := range s.rollups {
		if _, err := compact(context.Background(), &s.rollups[i], s.db, recordstest.SumHour, recordstest.SumHour+3600); err != nil {
			t.Fatalf("compact %s: %v", s.rollups[i].Table, err)
		}
	}
	recordstest.CheckSums(t, s, recordsOnly, recs)
}

// TestSumsOfAnEarlierVersion checks that a file of an earlier version, whose rollups hold a
// sum that wrapped around, has the hours where its records pass MaxSum summed anew when opened,
// once.
func TestSumsOfAnEarlierVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	recs := recordstest.SumRecords()
	recordstest.IngestSums(t, s, recs)
	if err := s.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	// What an earlier version left: rows of wrapped sums in the rollups it had (those by
	// application), and no saturatedTable nor schema version.
	for _, r := range s.rollups {
		if !r.Holds(records.ColApplication) {
			continue
		}
		if _, err := s.db.ExecContext(ctx, "UPDATE "+r.Table+" SET client_bytes = 12345 WHERE application = 'https'"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.ExecContext(ctx, "DROP TABLE "+saturatedTable+"; DROP TABLE "+schemaTable); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	recordstest.CheckSums(t, s, recordsOnly, recs)
}
