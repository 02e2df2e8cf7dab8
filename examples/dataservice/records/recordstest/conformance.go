// Package recordstest holds the checks every records engine passes (the conformance suite),
// driver-free, for each engine's tests to run on a store of its own:
//
//	func TestStores(t *testing.T) {
//		recordstest.Check(t, openStore(t))
//	}
package recordstest

import (
	"context"
	"errors"
	"net/netip"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Check checks what every store must do, on an empty s: Newest of nothing and of
// something, a refused batch storing nothing, groups and sums read back, and retention on day
// boundaries (where ClickHouse's whole-day partitions and DuckDB's rows agree).
func Check(t *testing.T, s records.Store) {
	ctx := context.Background()
	if _, ok, err := s.Newest(ctx); err != nil || ok {
		t.Fatalf("Newest of an empty store: ok %v, %v", ok, err)
	}
	const day = 86400
	base := int64(19_000) * day
	bad := Batch(5, base)
	bad[3].Client.Bytes = records.MaxCount + 1
	var be *records.BatchError
	if err := s.Ingest(ctx, bad); !errors.As(err, &be) || be.Index != 3 {
		t.Fatalf("Ingest of a bad batch = %v, want a BatchError at 3", err)
	}
	for d := range int64(3) {
		if err := s.Ingest(ctx, Batch(100*int(d+1), base+d*day+60)); err != nil {
			t.Fatal(err)
		}
	}
	if newest, ok, err := s.Newest(ctx); err != nil || !ok || newest != base+2*day+60 {
		t.Fatalf("Newest = %d, %v, %v; want %d", newest, ok, err, base+2*day+60)
	}
	// Traffic by time(day) and server.ip, over a period that cuts the last day.
	q := &records.Query{
		Groups: []records.Group{{Column: records.ColTime, Bucket: day}, {Column: records.ColServerIP}},
		Sums:   []records.Sum{records.SumClientBytes, records.SumServerBytes, records.SumRecords},
		Where:  records.Compare{Column: records.ColProtocol, Op: records.Eq, Value: records.Value{Lo: uint64(records.TCP)}},
	}
	got := map[int64][3]uint64{}
	err := s.Read(ctx, s.Compile(q), base, base+2*day+30, func(r *records.Row) error {
		got[int64(r.Keys[0].Lo)] = [3]uint64{r.Sums[0], r.Sums[1], r.Sums[2]}
		if a := records.AddrFromHalves(r.Keys[1].Hi, r.Keys[1].Lo).String(); a != "2001:db8::1" {
			t.Errorf("server.ip key %s", a)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64][3]uint64{base + day: {1000, 10000, 100}, base + 2*day: {2000, 20000, 200}}
	if len(got) != len(want) || got[base+day] != want[base+day] || got[base+2*day] != want[base+2*day] {
		t.Fatalf("read %v, want %v", got, want)
	}
	if n, err := s.DeleteBefore(ctx, base+2*day); err != nil || n != 300 {
		t.Fatalf("DeleteBefore = %d, %v; want the 300 records of the first two days", n, err)
	}
	if n := Count(t, s); n != 300 {
		t.Fatalf("%d records left, want the 300 of the last day", n)
	}
}

// Batch makes n valid records at time at: TCP to 2001:db8::1 port 443, 10 client and 100
// server bytes each.
func Batch(n int, at int64) []records.Record {
	out := make([]records.Record, n)
	for i := range out {
		out[i] = records.Record{Time: at, Protocol: records.TCP, Application: "https",
			Client: records.Endpoint{IP: netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), Port: 40000, Bytes: 10, Packets: 1},
			Server: records.Endpoint{IP: netip.MustParseAddr("2001:db8::1"), Port: 443, Bytes: 100, Packets: 2}}
	}
	return out
}

// Count returns the number of records r holds, failing t when it cannot read them.
func Count(t testing.TB, r records.Reader) int64 {
	t.Helper()
	var n int64
	q := &records.Query{Sums: []records.Sum{records.SumRecords}}
	err := r.Read(context.Background(), r.Compile(q), 0, 1<<40, func(row *records.Row) error {
		n += int64(row.Sums[0])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
