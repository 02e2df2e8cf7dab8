package records_test

import (
	"context"
	"errors"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestStores runs the same checks on every Store: DuckDB, one ClickHouse server and a
// two-shard ClickHouse cluster.
func TestStores(t *testing.T) {
	t.Run("duckdb", func(t *testing.T) {
		checkStore(t, openStore(t, t.TempDir()))
	})
	t.Run("clickhouse", func(t *testing.T) {
		checkStore(t, records.OpenClickHouseTest(t, testenv.ClickHouse(t).URL, ""))
	})
	t.Run("clickhouse cluster", func(t *testing.T) {
		checkStore(t, records.OpenClickHouseTest(t, testenv.ClickHouseCluster(t, 2)[0].URL, testenv.ClickHouseClusterName))
	})
}

// checkStore checks what every store must do, on an empty s: Newest of nothing and of
// something, a refused batch storing nothing, groups and sums read back, and retention on day
// boundaries (where ClickHouse's whole-day partitions and DuckDB's rows agree).
func checkStore(t *testing.T, s records.Store) {
	ctx := context.Background()
	if _, ok, err := s.Newest(ctx); err != nil || ok {
		t.Fatalf("Newest of an empty store: ok %v, %v", ok, err)
	}
	const day = 86400
	base := int64(19_000) * day
	bad := batch(5, base)
	bad[3].Client.Bytes = records.MaxCount + 1
	var be *records.BatchError
	if err := s.Ingest(ctx, bad); !errors.As(err, &be) || be.Index != 3 {
		t.Fatalf("Ingest of a bad batch = %v, want a BatchError at 3", err)
	}
	for d := range int64(3) {
		if err := s.Ingest(ctx, batch(100*int(d+1), base+d*day+60)); err != nil {
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
	if n := mustCount(t, s); n != 300 {
		t.Fatalf("%d records left, want the 300 of the last day", n)
	}
}
