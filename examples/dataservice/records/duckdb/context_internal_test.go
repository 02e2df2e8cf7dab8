package duckdb

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// asVersion10 turns the file of s, open at the latest version, into one as version 10 left
// it: the context's columns in the records table, holding each record's context, and no
// contexts table. (Version 10 had the histograms after the context's columns, here before: the
// steps after it find the columns by name.)
func asVersion10(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	var set []string
	for _, c := range step6Columns {
		exec(t, s, "ALTER TABLE records ADD COLUMN "+c.Name()+" "+duckTypes[c.Kind()]+" DEFAULT "+zeroOf(c.Kind()))
		set = append(set, c.Name()+" = "+contextsTable+"."+c.Name())
	}
	exec(t, s, "UPDATE records SET "+strings.Join(set, ", ")+" FROM "+contextsTable+" WHERE "+contextsTable+".id = records.context")
	exec(t, s, "ALTER TABLE records DROP COLUMN context")
	exec(t, s, "DROP TABLE "+contextsTable)
	if _, err := s.db.ExecContext(ctx, "UPDATE "+schemaTable+" SET version = 10"); err != nil {
		t.Fatal(err)
	}
}

func exec(t *testing.T, s *Store, stmt string) {
	t.Helper()
	if _, err := s.db.ExecContext(context.Background(), stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// count returns the single number query answers.
func count(t *testing.T, s *Store, query string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRowContext(context.Background(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestOpenSeparatesContext opens a file of schema version 10, whose records hold their context
// in columns of their own: steps 11 to 13 move it to the contexts table, one row per distinct
// context, and every record reads back by every context key as before; records go in after.
func TestOpenSeparatesContext(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	const at = 1_700_000_040
	recs := recordstest.ContextBatch(60, at)
	if err := s.Ingest(ctx, recs); err != nil {
		t.Fatal(err)
	}
	distinct := map[uint64]bool{}
	for i := range recs {
		var vs contextValues
		for j, c := range contextColumns {
			vs[j] = c.Of(&recs[i])
		}
		distinct[vs.id()] = true
	}
	asVersion10(t, s)
	if n := count(t, s, "SELECT count(DISTINCT server_zone) FROM records"); n < 2 {
		t.Fatalf("the version 10 file holds %d server zones", n)
	}
	s.Close()
	if s, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := count(t, s, "SELECT count(*) FROM "+contextsTable); n != len(distinct) {
		t.Errorf("%d contexts after migrating, want the %d distinct ones", n, len(distinct))
	}
	if n := count(t, s, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'records' AND column_name = 'client_zone'"); n != 0 {
		t.Errorf("the records table still has client_zone")
	}
	// The migrated minute reads as CheckContext reads a minute it ingests now.
	q := &records.Query{Groups: []records.Group{{Column: records.ColServerZone}, {Column: records.ColServerASN}, {Column: records.ColServerASName}, {Column: records.ColInIfName}},
		Sums: []records.Sum{records.SumRecords}}
	want := map[string]uint64{}
	for i := range recs {
		r := &recs[i]
		want[fmt.Sprint(r.Server.Zone, r.Server.ASN, r.Server.ASName, r.InIfName)]++
	}
	got := map[string]uint64{}
	// Up to 30 s into the minute: the records, not the rollups.
	err = s.Read(ctx, s.Compile(q), at, at+60, func(r *records.Row) error {
		got[fmt.Sprint(r.Keys[0].Str, r.Keys[1].Lo, r.Keys[2].Str, r.Keys[3].Str)] += r.Sums[0]
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after migrating, by server zone, AS and interface:\n got %v\nwant %v", got, want)
	}
	recordstest.CheckContext(t, s, 1_700_000_160)
}

// TestRetentionDropsContexts checks that retention deletes the contexts no record holds any
// more, and that a context seen again after it is stored again.
func TestRetentionDropsContexts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTemp(t)
	const at = 1_700_000_040
	old := recordstest.ContextBatch(60, at)
	for i := range old {
		old[i].Server.Zone = "Old"
	}
	if err := s.Ingest(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := s.Ingest(ctx, recordstest.Batch(5, at+3600)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "SELECT count(*) FROM "+contextsTable+" WHERE server_zone = 'Old'"); n == 0 {
		t.Fatal("no context of zone Old stored")
	}
	if _, err := s.DeleteBefore(ctx, at+3600); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "SELECT count(*) FROM "+contextsTable+" WHERE server_zone = 'Old'"); n != 0 {
		t.Errorf("%d contexts of zone Old left after retention deleted their records", n)
	}
	if n := count(t, s, "SELECT count(*) FROM "+contextsTable); n != 1 {
		t.Errorf("%d contexts left, want the empty one of the records left", n)
	}
	again := old[:1]
	again[0].Time = at + 3600
	if err := s.Ingest(ctx, again); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "SELECT count(*) FROM records JOIN "+contextsTable+" ON id = context WHERE server_zone = 'Old'"); n != 1 {
		t.Errorf("a context seen again after retention: %d records read with it, want 1", n)
	}
}
