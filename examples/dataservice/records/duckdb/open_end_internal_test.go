package duckdb

import (
	"context"
	"net/netip"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestOpenEnd checks the reads whose period ends past the newest record, which read the newest
// buckets whole from the rollups (records.Plan.OpenEnd): they count every record of the period
// and none after its end, whether the newest record came before the store opened (its bound
// read from the rollups) or since (raised by each ingest), and a period ending before the newest
// record is still cut at its end.
func TestOpenEnd(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	const hour = int64(1_700_000_000 / 3600 * 3600)
	rec := func(at int64) records.Record {
		return records.Record{Time: at, Protocol: records.TCP, Application: "https",
			Client: records.Endpoint{IP: netip.MustParseAddr("10.0.0.1"), Bytes: 1},
			Server: records.Endpoint{IP: netip.MustParseAddr("10.0.0.2"), Port: 443}}
	}
	ingest := func(times ...int64) {
		t.Helper()
		var recs []records.Record
		for _, at := range times {
			recs = append(recs, rec(at))
		}
		if err := s.Ingest(ctx, recs); err != nil {
			t.Fatal(err)
		}
	}
	count := func(from, to int64) uint64 {
		t.Helper()
		q := &records.Query{Groups: []records.Group{{Column: records.ColApplication}}, Sums: []records.Sum{records.SumRecords}}
		var n uint64
		if err := s.Read(ctx, s.Compile(q), from, to, func(r *records.Row) error { n += r.Sums[0]; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	check := func(what string, from, to int64, want uint64) {
		t.Helper()
		if got := count(hour+from, hour+to); got != want {
			t.Errorf("%s: %d records over [%d, %d), want %d", what, got, hour+from, hour+to, want)
		}
	}
	ingest(hour-30, hour+5, hour+605, hour+1205)
	check("up to the newest", -3600, 1206, 4)
	check("past the newest", -3600, 1800, 4)
	check("ending at the newest", -3600, 1205, 3)
	check("ending before the newest", -20, 700, 2)
	ingest(hour + 1805)
	check("ending before a record ingested since", -20, 1800, 3)
	check("past it", -20, 1806, 4)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.newest.Load() < hour+1805 {
		t.Fatalf("newest %d after reopening, below the newest record's time %d", s.newest.Load(), hour+1805)
	}
	check("reopened, ending before the newest", -20, 1800, 3)
	check("reopened, past the newest", -20, 3600, 4)
}
