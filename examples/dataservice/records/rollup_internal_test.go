package records

import (
	"context"
	"fmt"
	"net/netip"
	"reflect"
	"testing"
)

// sumsBy reads q over [from, to) from the records alone (raw) or with the rollup, and returns
// the sums of each group.
func sumsBy(t *testing.T, s Reader, q *Query, from, to int64, raw bool) map[string][]uint64 {
	t.Helper()
	p := s.Compile(q)
	if raw {
		p.rollup = nil
	} else if p.rollup == nil {
		t.Fatalf("no rollup for %+v", q)
	}
	out := map[string][]uint64{}
	err := s.Read(context.Background(), p, from, to, func(r *Row) error {
		k := fmt.Sprint(r.Keys)
		if out[k] == nil {
			out[k] = make([]uint64, len(r.Sums))
		}
		for i, v := range r.Sums {
			out[k][i] += v
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRollupMadeForAnEarlierFile checks that a database without the rollup (made by an earlier
// version) gains it, summed from the records it holds, when opened.
func TestRollupMadeForAnEarlierFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := OpenDuckDB(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for i := range 3000 {
		recs = append(recs, Record{Time: 1_700_000_000 + int64(i*7%5000), Protocol: []uint8{TCP, UDP}[i%2],
			Application: []string{"dns", "https", "ssh"}[i%3], Client: Endpoint{IP: netip.MustParseAddr("10.0.0.1"), Bytes: uint64(i)},
			Server: Endpoint{IP: netip.MustParseAddr("10.0.0.2"), Port: uint16(i % 5), Packets: 3}})
	}
	if err := s.Ingest(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, "DROP TABLE "+rollupTable); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = OpenDuckDB(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q := &Query{Groups: []Group{{Bucket: 600}, {Column: ColApplication}, {Column: ColServerPort}},
		Sums: []Sum{SumClientBytes, SumServerPackets, SumRecords}}
	from, to := int64(1_700_000_000-13), int64(1_700_004_321)
	raw, rolled := sumsBy(t, s, q, from, to, true), sumsBy(t, s, q, from, to, false)
	if len(raw) == 0 || !reflect.DeepEqual(raw, rolled) {
		t.Errorf("with the rebuilt rollup %v, from the records %v", rolled, raw)
	}
}

// TestRollupCompaction checks that compacting the rollup merges the rows that batches wrote
// for one minute and keys into one and leaves its sums as they were, and that ingesting
// compactEvery records compacts the minutes they touched.
func TestRollupCompaction(t *testing.T) {
	ctx := context.Background()
	s, err := OpenDuckDB(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows := func() (n int) {
		t.Helper()
		if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+rollupTable).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	r := Record{Time: 1_699_999_981, Protocol: UDP, Application: "dns",
		Client: Endpoint{IP: netip.MustParseAddr("10.0.0.1"), Bytes: 5}, Server: Endpoint{IP: netip.MustParseAddr("10.0.0.2"), Port: 53}}
	for range 10 { // all in the minute from 1_699_999_980
		r.Time++
		if err := s.Ingest(ctx, []Record{r}); err != nil {
			t.Fatal(err)
		}
	}
	q := &Query{Groups: []Group{{Bucket: 60}, {Column: ColApplication}}, Sums: []Sum{SumClientBytes, SumRecords}}
	before := sumsBy(t, s, q, 1_699_999_940, 1_700_000_180, false)
	if n := rows(); n != 10 {
		t.Fatalf("%d rollup rows after 10 batches of one minute and keys", n)
	}
	if err := compactRollup(ctx, s.db, 1_699_999_980, 1_699_999_980); err != nil {
		t.Fatal(err)
	}
	if n := rows(); n != 1 {
		t.Errorf("%d rollup rows after compaction, want 1", n)
	}
	if after := sumsBy(t, s, q, 1_699_999_940, 1_700_000_180, false); !reflect.DeepEqual(before, after) || !reflect.DeepEqual(after, sumsBy(t, s, q, 1_699_999_940, 1_700_000_180, true)) {
		t.Errorf("sums before compaction %v, after %v", before, after)
	}
	s.span.n = compactEvery - 1
	for range 2 {
		if err := s.Ingest(ctx, []Record{r}); err != nil {
			t.Fatal(err)
		}
	}
	if n := rows(); n != 2 || s.span.n != 1 {
		t.Errorf("after the ingest that made it due and one more: %d rollup rows (want 2), %d records pending (want 1)", n, s.span.n)
	}
}
