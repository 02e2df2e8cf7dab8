package records_test

import (
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestNoDriverDependency checks the layering of issue 29: the record model, the query model,
// the planner (package records) and the query language (package pvql) link no database driver,
// so they build without cgo and a program that reads records through another engine does not
// carry DuckDB. Only records/duckdb and records/clickhouse import their drivers.
func TestNoDriverDependency(t *testing.T) {
	t.Parallel()
	const module = "github.com/fnapi/fnapi/examples/dataservice/"
	for _, dep := range testenv.Deps(t, module+"records", module+"pvql") {
		for _, driver := range []string{"github.com/duckdb/", "github.com/ClickHouse/", module + "records/duckdb", module + "records/clickhouse"} {
			if strings.HasPrefix(dep, driver) {
				t.Errorf("records or pvql depends on %s", dep)
			}
		}
	}
}
