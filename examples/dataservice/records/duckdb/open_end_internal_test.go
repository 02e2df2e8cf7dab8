package duckdb

import (
	"context"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// TestOpenEnd checks the bound on the newest record's time that lets DuckDB's reads open
// their ends (records.Plan.OpenEnd): raised by each ingest (recordstest.CheckOpenEnd reads
// periods ending past, at and before the newest record, also once newer records came), and
// read again from the rollups when the store reopens, so that the same periods read the same.
func TestOpenEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	const at = 1_700_010_000
	recordstest.CheckOpenEnd(t, s, at)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if newest := s.newest.Load(); newest < at+1860 {
		t.Fatalf("newest %d after reopening, below the newest record's time %d", newest, at+1860)
	}
	q := s.Compile(&records.Query{Sums: []records.Sum{records.SumRecords}})
	for _, c := range []struct{ to, want uint64 }{{1800, 5}, {1861, 7}, {3600, 7}} {
		var n uint64
		if err := s.Read(ctx, q, at-3600, at+int64(c.to), func(r *records.Row) error { n += r.Sums[0]; return nil }); err != nil {
			t.Fatal(err)
		}
		if n != c.want {
			t.Errorf("reopened, over [%d, %d): %d records, want %d", at-3600, at+c.to, n, c.want)
		}
	}
}
