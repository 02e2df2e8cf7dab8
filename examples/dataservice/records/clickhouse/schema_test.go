package clickhouse_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records/clickhouse"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// The schema: a table of another shape or version refused, and the steps that add columns to
// the tables of earlier versions.

// TestClickHouseSchema checks that a table of another shape or schema version is refused with
// a message that says so, and left as it was.
func TestClickHouseSchema(t *testing.T) {
	srv := testenv.ClickHouse(t)
	ctx := context.Background()
	conn := rawConn(t, srv)
	if err := conn.Exec(ctx, "CREATE TABLE records (time Int64, bytes UInt64) ENGINE = MergeTree ORDER BY time"); err != nil {
		t.Fatal(err)
	}
	_, err := clickhouse.Open(ctx, srv.URL, "")
	if err == nil || !strings.Contains(err.Error(), "another shape") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("open over a table of another shape: %v", err)
	}
	var cols uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM system.columns WHERE table = 'records'").Scan(&cols); err != nil || cols != 2 {
		t.Fatalf("the foreign table has %d columns (%v), want its 2", cols, err)
	}
	if err := conn.Exec(ctx, "DROP TABLE records"); err != nil {
		t.Fatal(err)
	}
	clickhouse.OpenClickHouseTest(t, srv.URL, "").Close()
	clickhouse.OpenClickHouseTest(t, srv.URL, "").Close() // an existing table of the right shape is taken
	b, err := conn.PrepareBatch(ctx, "INSERT INTO records_version (version)")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Append(uint32(clickhouse.SchemaVersion + 1)); err != nil {
		t.Fatal(err)
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	if _, err := clickhouse.Open(ctx, srv.URL, ""); err == nil || !strings.Contains(err.Error(), "schema version") {
		t.Fatalf("open over a table of a later schema version: %v", err)
	}
}

// TestClickHouseAddsCaptureColumns opens tables of schema version 3, made before the capture
// probe's columns, holding records, on one server and on a two-shard cluster (whose
// Distributed table lacks them too): schema step 4 adds the columns, the records keep their
// counts with zero capture sums, and records carrying them go in and read back.
func TestClickHouseAddsCaptureColumns(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		testAddsCaptureColumns(t, []*testenv.ClickHouseServer{testenv.ClickHouse(t)}, "")
	})
	t.Run("cluster", func(t *testing.T) {
		testAddsCaptureColumns(t, testenv.ClickHouseCluster(t, 2), testenv.ClickHouseClusterName)
	})
}

func testAddsCaptureColumns(t *testing.T, servers []*testenv.ClickHouseServer, cluster string) {
	ctx := context.Background()
	const at = 1_700_000_040
	s, err := clickhouse.Open(ctx, servers[0].URL, cluster)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ingest(ctx, batch(3, at)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// The tables as version 3 left them.
	names, _ := records.SQLColumns()
	for k, srv := range servers {
		conn := rawConn(t, srv)
		tables := []string{"records"}
		if cluster != "" && k == 0 {
			tables = append(tables, "records_dist")
		}
		for _, table := range tables {
			for i := len(names) - 1; names[i] != "out_if"; i-- {
				if err := conn.Exec(ctx, "ALTER TABLE "+table+" DROP COLUMN "+names[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
		clickhouse.SetVersionTest(t, conn, 3)
	}
	s2 := clickhouse.OpenClickHouseTest(t, servers[0].URL, cluster)
	q := &records.Query{Sums: append([]records.Sum{records.SumClientBytes, records.SumRecords}, recordstest.CaptureSums...)}
	read := func() []uint64 {
		var out []uint64
		err := s2.Read(ctx, s2.Compile(q), at, at+60, func(r *records.Row) error {
			if out == nil {
				out = make([]uint64, len(r.Sums))
			}
			for i, v := range r.Sums {
				out[i] += v
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := read(); got[0] != 30 || got[1] != 3 || slices.ContainsFunc(got[2:], func(v uint64) bool { return v != 0 }) {
		t.Fatalf("the old records read %v, want client bytes 30, 3 records, zero capture sums", got)
	}
	if err := s2.Ingest(ctx, recordstest.CaptureBatch(2, at)); err != nil {
		t.Fatal(err)
	}
	// Record 0: server rtt 40000 µs, 1 sample; record 1: 80000 µs, 2 samples.
	if got := read(); got[1] != 5 || got[4] != 120000 || got[5] != 3 {
		t.Fatalf("after capture records: %v, want 5 records, server rtt 120000 µs over 3 samples", got)
	}
}

// TestClickHouseAddsContextColumns opens tables of schema version 4, made before the context's
// columns and rollups, holding records, on one server and on a two-shard cluster (whose
// Distributed tables lack them too): schema step 5 adds the columns (empty in the old rows)
// and the rollups, and records carrying a context go in and read back by every context key.
func TestClickHouseAddsContextColumns(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		testAddsContextColumns(t, []*testenv.ClickHouseServer{testenv.ClickHouse(t)}, "")
	})
	t.Run("cluster", func(t *testing.T) {
		testAddsContextColumns(t, testenv.ClickHouseCluster(t, 2), testenv.ClickHouseClusterName)
	})
}

func testAddsContextColumns(t *testing.T, servers []*testenv.ClickHouseServer, cluster string) {
	ctx := context.Background()
	const at = 1_700_000_040
	s, err := clickhouse.Open(ctx, servers[0].URL, cluster)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ingest(ctx, batch(3, at)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// The tables as version 4 left them.
	names, _ := records.SQLColumns()
	for k, srv := range servers {
		conn := rawConn(t, srv)
		tables := []string{"records"}
		drop := []string{"records_minute_context_mv", "records_minute_context", "records_hour_context_mv", "records_hour_context"}
		if cluster != "" && k == 0 {
			tables = append(tables, "records_dist")
			drop = append(drop, "records_minute_context_dist", "records_hour_context_dist")
		}
		for _, d := range drop {
			if err := conn.Exec(ctx, "DROP TABLE "+d); err != nil {
				t.Fatal(err)
			}
		}
		for _, table := range tables {
			for i := len(names) - 1; names[i] != "server_name"; i-- {
				if err := conn.Exec(ctx, "ALTER TABLE "+table+" DROP COLUMN "+names[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
		clickhouse.SetVersionTest(t, conn, 4)
	}
	s2 := clickhouse.OpenClickHouseTest(t, servers[0].URL, cluster)
	q := &records.Query{Groups: []records.Group{{Column: records.ColServerZone}, {Column: records.ColServerASN}},
		Sums: []records.Sum{records.SumClientBytes, records.SumRecords}}
	rows := map[string][2]uint64{} // a group may come in several rows
	err = s2.Read(ctx, s2.Compile(q), at-at%3600, at-at%3600+3600, func(r *records.Row) error {
		k := fmt.Sprint(r.Keys)
		rows[k] = [2]uint64{rows[k][0] + r.Sums[0], rows[k][1] + r.Sums[1]}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(rows), "map[[{0 0 } {0 0 }]:[30 3]]"; got != want {
		t.Fatalf("the old records read %s by server zone and AS, want %s (no zone, no AS)", got, want)
	}
	recordstest.CheckContext(t, s2, 1_700_000_160)
}

// TestClickHouseAddsHistograms opens tables of schema version 5, made before the records kept
// histograms, holding capture records, on one server and on a two-shard cluster: schema step
// 6 adds the columns, whose DEFAULT gives each old record its samples in the bucket of their
// average, and records carrying histograms go in and read back.
func TestClickHouseAddsHistograms(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		testAddsHistograms(t, []*testenv.ClickHouseServer{testenv.ClickHouse(t)}, "")
	})
	t.Run("cluster", func(t *testing.T) {
		testAddsHistograms(t, testenv.ClickHouseCluster(t, 2), testenv.ClickHouseClusterName)
	})
}

func testAddsHistograms(t *testing.T, servers []*testenv.ClickHouseServer, cluster string) {
	ctx := context.Background()
	const at = 1_700_000_040
	s, err := clickhouse.Open(ctx, servers[0].URL, cluster)
	if err != nil {
		t.Fatal(err)
	}
	old := recordstest.Averaged(recordstest.CaptureBatch(6, at))
	if err := s.Ingest(ctx, old); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// The tables as version 5 left them.
	for k, srv := range servers {
		conn := rawConn(t, srv)
		tables := []string{"records"}
		if cluster != "" && k == 0 {
			tables = append(tables, "records_dist")
		}
		for _, table := range tables {
			for _, c := range slices.Concat(recordstest.HistColumns, records.LayerColumns, records.RouteColumns) {
				if err := conn.Exec(ctx, "ALTER TABLE "+table+" DROP COLUMN "+c.Name()); err != nil {
					t.Fatal(err)
				}
			}
		}
		clickhouse.SetVersionTest(t, conn, 5)
	}
	s2 := clickhouse.OpenClickHouseTest(t, servers[0].URL, cluster)
	recordstest.CheckHists(t, s2, at, old)
	recs := recordstest.CaptureBatch(4, at)
	if err := s2.Ingest(ctx, recs); err != nil {
		t.Fatal(err)
	}
	recordstest.CheckHists(t, s2, at, append(old, recs...))
}
