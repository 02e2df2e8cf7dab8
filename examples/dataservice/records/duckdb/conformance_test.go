package duckdb_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// TestStores runs the checks every store passes (package recordstest) on DuckDB, opened
// through records' table of engines by a duckdb: URL; a plain path opens DuckDB too.
func TestStores(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, e, err := records.Open(context.Background(), "duckdb:"+dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.(*duckdb.Store); !ok || e.Name != "duckdb" || e.Shared || e.Clusters {
		t.Fatalf("duckdb: opened %T with engine %+v", s, e)
	}
	recordstest.Check(t, s)
	recordstest.CheckCapture(t, s, 1_700_000_040)
	recordstest.CheckContext(t, s, 1_700_000_160)
	recordstest.CheckContextPartial(t, s, 1_700_000_280)
	recordstest.CheckContextEdges(t, s, 1_700_000_400)
	recordstest.CheckOpenEnd(t, s, 1_700_010_000)
	recordstest.CheckBatches(t, s.(records.BatchStore), 1_700_020_000)
	recordstest.CheckRoutes(t, s, 1_700_030_000)
	recordstest.CheckLayers(t, s, 1_700_100_000) // last: it tests retention
	if e, err := records.EngineOf(filepath.Join(dir, "data")); err != nil || e.Name != "duckdb" {
		t.Errorf("a plain path: engine %v, %v; want DuckDB", e, err)
	}
}
