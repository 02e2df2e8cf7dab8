package clickhouse_test

import (
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records/clickhouse"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// TestStores runs the checks every store passes (package recordstest) on one ClickHouse server
// and on a two-shard ClickHouse cluster.
func TestStores(t *testing.T) {
	t.Run("clickhouse", func(t *testing.T) {
		url := testenv.ClickHouse(t).URL
		if e, err := records.EngineOf(url); err != nil || e.Name != "clickhouse" || !e.Shared || !e.Clusters {
			t.Fatalf("engine of %s: %+v, %v; want ClickHouse, shared, with clusters", url, e, err)
		}
		s := clickhouse.OpenClickHouseTest(t, url, "")
		recordstest.Check(t, s)
		recordstest.CheckCapture(t, s, 1_700_000_040)
		recordstest.CheckContext(t, s, 1_700_000_160)
		recordstest.CheckContextPartial(t, s, 1_700_000_280)
		recordstest.CheckContextEdges(t, s, 1_700_000_400)
		recordstest.CheckOpenEnd(t, s, 1_700_010_000)
		recordstest.CheckBatches(t, s, 1_700_020_000)
		recordstest.CheckBatchesWithoutID(t, s, 1_700_020_060)
		recordstest.CheckRoutes(t, s, 1_700_030_000)
		recordstest.CheckLayers(t, s, 1_700_100_000) // last: it tests retention
	})
	t.Run("clickhouse cluster", func(t *testing.T) {
		s := clickhouse.OpenClickHouseTest(t, testenv.ClickHouseCluster(t, 2)[0].URL, testenv.ClickHouseClusterName)
		recordstest.Check(t, s)
		recordstest.CheckCapture(t, s, 1_700_000_040)
		recordstest.CheckContext(t, s, 1_700_000_160)
		recordstest.CheckContextPartial(t, s, 1_700_000_280)
		recordstest.CheckContextEdges(t, s, 1_700_000_400)
		recordstest.CheckOpenEnd(t, s, 1_700_010_000)
		recordstest.CheckBatches(t, s, 1_700_020_000)
		recordstest.CheckBatchesWithoutID(t, s, 1_700_020_060)
		recordstest.CheckRoutes(t, s, 1_700_030_000)
		recordstest.CheckLayers(t, s, 1_700_100_000) // last: it tests retention
	})
}

// TestOnlyDuckDBReportsChanges checks that ClickHouse, which other processes may write, does
// not claim to report every change of its records (DuckDB's claim is asserted at compile time).
func TestOnlyDuckDBReportsChanges(t *testing.T) {
	if _, ok := any((*clickhouse.Store)(nil)).(records.ChangeReporter); ok {
		t.Error("ClickHouse is a ChangeReporter, but other processes may write its records")
	}
}
