package clickhouse

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestClickHouseAddsRollupMeasures opens tables of schema version 6, whose rollups lack the
// capture probe's measures and histograms, holding capture records, on one server and on a
// two-shard cluster (whose Distributed tables of the rollups lack them too): schema step 7
// makes each rollup anew and the repair sums it again from the records, so that measures and
// percentiles read from the rollups answer as the records do, for the old records and for
// those ingested since.
func TestClickHouseAddsRollupMeasures(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		testAddsRollupMeasures(t, []*testenv.ClickHouseServer{testenv.ClickHouse(t)}, "")
	})
	t.Run("cluster", func(t *testing.T) {
		testAddsRollupMeasures(t, testenv.ClickHouseCluster(t, 2), testenv.ClickHouseClusterName)
	})
}

func testAddsRollupMeasures(t *testing.T, servers []*testenv.ClickHouseServer, cluster string) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	s := OpenClickHouseTest(t, servers[0].URL, cluster)
	if err := s.Ingest(ctx, chTestRecords(rng, 3000)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// The tables as version 6 left them: rollups without measures, summed from the records.
	old := chUnmeasured(chTransportRollups)
	for k, srv := range servers {
		conn := RawClickHouse(t, srv.URL)
		for i := range chRollups {
			r := &chRollups[i]
			for _, stmt := range []string{"DROP TABLE " + chView(r), "DROP TABLE " + r.Table, "DROP TABLE IF EXISTS " + chDist(r)} {
				if err := conn.Exec(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := chEnsureRollupsOf(ctx, conn, old); err != nil {
			t.Fatal(err)
		}
		for i := 0; cluster != "" && k == 0 && i < len(old); i++ {
			if err := chEnsureRollupDist(ctx, conn, cluster, "default", &old[i]); err != nil {
				t.Fatal(err)
			}
		}
		for i := range old {
			if err := conn.Exec(ctx, "INSERT INTO "+old[i].Table+" ("+chRollupStored(&old[i])+") "+chRollupSelect(&old[i], "")); err != nil {
				t.Fatal(err)
			}
		}
		SetVersionTest(t, conn, 6)
		if have, _, err := tableShape(ctx, conn, old[0].Table); err != nil || slices.Contains(have, "srt_histMap.index Array(UInt16)") {
			t.Fatalf("the rollup of version 6 has columns %v (%v), with a histogram", have, err)
		}
	}
	s = OpenClickHouseTest(t, servers[0].URL, cluster)
	for k, srv := range servers {
		conn := RawClickHouse(t, srv.URL)
		if v, err := schemaVersion(ctx, conn); err != nil || v != SchemaVersion {
			t.Errorf("schema version %d (%v) after the upgrade, want %d", v, err, SchemaVersion)
		}
		tables := []string{chRollups[0].Table}
		if cluster != "" && k == 0 {
			tables = append(tables, chDist(&chRollups[0]))
		}
		for _, table := range tables {
			if have, _, err := tableShape(ctx, conn, table); err != nil || !reflect.DeepEqual(have, chRollupColumns(&chRollups[0])) {
				t.Errorf("%s after the upgrade has columns %v (%v), want %v", table, have, err, chRollupColumns(&chRollups[0]))
			}
		}
	}
	chSame(t, s, rng)
	if err := s.Ingest(ctx, chTestRecords(rng, 1000)); err != nil {
		t.Fatal(err)
	}
	chSame(t, s, rng)
	// Percentiles by application over whole hours are planned onto the rollups.
	q := &records.Query{Groups: []records.Group{{Column: records.ColApplication}}, Sums: []records.Sum{records.SumSRT, records.SumSRTSamples},
		Hists: []records.Column{records.ColSRTHist}}
	levels := 0
	s.Compile(q).Each(func(p *records.Plan) error {
		levels += len(p.Levels)
		return nil
	})
	if levels == 0 {
		t.Error("a percentile query by application reads no rollup")
	}
}
