package duckdb_test

import (
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// TestStores runs the checks every store passes (package recordstest) on DuckDB.
func TestStores(t *testing.T) {
	t.Parallel()
	recordstest.Check(t, openStore(t, t.TempDir()))
}
