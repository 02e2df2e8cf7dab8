package clickhouse

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"

	chdriver "github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// TestClickHouseRegranulates opens tables of schema version 7, whose rollups have ClickHouse's
// default index granularity, holding records, on one server and on a two-shard cluster: schema
// step 8 makes each rollup anew with a mark every chRollupGranularity rows and copies its rows,
// so that the rollups answer as the records do, for the old records and those ingested since.
// Two rollups are as a step 8 that failed midway left them: one renamed but its old table not
// dropped, one whose new table was made but not filled.
func TestClickHouseRegranulates(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		testRegranulates(t, []*testenv.ClickHouseServer{testenv.ClickHouse(t)}, "")
	})
	t.Run("cluster", func(t *testing.T) {
		testRegranulates(t, testenv.ClickHouseCluster(t, 2), testenv.ClickHouseClusterName)
	})
}

func testRegranulates(t *testing.T, servers []*testenv.ClickHouseServer, cluster string) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 10))
	s := OpenClickHouseTest(t, servers[0].URL, cluster)
	recs := chTestRecords(rng, 3000)
	if err := s.Ingest(ctx, recs); err != nil {
		t.Fatal(err)
	}
	s.Close()
	exec := func(c chdriver.Conn, stmts ...string) {
		t.Helper()
		for _, stmt := range stmts {
			if err := c.Exec(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
	}
	// The tables as version 7 left them, the rollups at the default granularity, summed from
	// the records.
	for _, srv := range servers {
		conn := RawClickHouse(t, srv.URL)
		for i := range chTransportRollups {
			r := &chTransportRollups[i]
			exec(conn, "DROP TABLE "+chView(r), "DROP TABLE "+r.Table,
				"CREATE TABLE "+r.Table+" ("+chRollupDefs(r)+") ENGINE = "+chRollupEngine7(r),
				"CREATE MATERIALIZED VIEW "+chView(r)+" TO "+r.Table+" AS "+chRollupSelect(r, ""),
				"INSERT INTO "+r.Table+" ("+chRollupStored(r)+") "+chRollupSelect(r, ""))
			if e := engineFull(t, conn, r.Table); strings.Contains(e, chGranularity) {
				t.Fatalf("%s as version 7 made it: %s", r.Table, e)
			}
		}
		r1, r2 := &chTransportRollups[1], &chTransportRollups[2]
		exec(conn, "CREATE TABLE "+r1.Table+"_v8 ("+chRollupDefs(r1)+") ENGINE = "+chRollupEngine(r1),
			"INSERT INTO "+r1.Table+"_v8 SELECT * FROM "+r1.Table,
			"RENAME TABLE "+r1.Table+" TO "+r1.Table+"_v7, "+r1.Table+"_v8 TO "+r1.Table,
			"CREATE TABLE "+r2.Table+"_v8 ("+chRollupDefs(r2)+") ENGINE = "+chRollupEngine(r2))
		SetVersionTest(t, conn, 7)
	}
	// Step 8 alone on each server (the open's repair would sum anew what it failed to copy),
	// then the store opened over them.
	for _, srv := range servers {
		conn := RawClickHouse(t, srv.URL)
		if err := migrate(ctx, conn); err != nil {
			t.Fatal(err)
		}
		if v, err := schemaVersion(ctx, conn); err != nil || v != SchemaVersion {
			t.Errorf("schema version %d (%v) after the upgrade, want %d", v, err, SchemaVersion)
		}
		for i := range chTransportRollups {
			r := &chTransportRollups[i]
			if e := engineFull(t, conn, r.Table); !strings.Contains(e, chGranularity) {
				t.Errorf("%s after the upgrade: %s, want %s", r.Table, e, chGranularity)
			}
			var have, want uint64
			if err := conn.QueryRow(ctx, "SELECT toUInt64(sum(records)) FROM "+r.Table).Scan(&have); err != nil {
				t.Fatal(err)
			}
			if err := conn.QueryRow(ctx, "SELECT toUInt64(count()) FROM records").Scan(&want); err != nil {
				t.Fatal(err)
			}
			if have != want {
				t.Errorf("%s holds %d records after the upgrade, the server %d", r.Table, have, want)
			}
		}
		var left uint64
		if err := conn.QueryRow(ctx, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND (name LIKE '%\\_v7' OR name LIKE '%\\_v8')").Scan(&left); err != nil || left != 0 {
			t.Errorf("%d tables of the upgrade left (%v)", left, err)
		}
	}
	s = OpenClickHouseTest(t, servers[0].URL, cluster)
	chSame(t, s, rng)
	if err := s.Ingest(ctx, chTestRecords(rng, 1000)); err != nil {
		t.Fatal(err)
	}
	chSame(t, s, rng)
	q := &records.Query{Groups: []records.Group{{Column: records.ColApplication}}, Sums: []records.Sum{records.SumRecords}}
	levels := 0
	s.Compile(q).Each(func(p *records.Plan) error {
		levels += len(p.Levels)
		return nil
	})
	if levels == 0 {
		t.Error("a query by application reads no rollup")
	}
}

// engineFull is table's engine with its settings, as system.tables on c gives it.
func engineFull(t *testing.T, c chdriver.Conn, table string) string {
	t.Helper()
	var e string
	if err := c.QueryRow(context.Background(), "SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = ?", table).Scan(&e); err != nil {
		t.Fatalf("%s: %v", table, err)
	}
	return e
}
