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
func sumsBy(t *testing.T, s *DuckDB, q *Query, from, to int64, raw bool) map[string][]uint64 {
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
