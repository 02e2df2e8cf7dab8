package records_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoDriverDependency checks the layering of issue 29: the record model, the query model,
// the planner (package records) and the query language (package pvql) link no database driver,
// so they build without cgo and a program that reads records through another engine does not
// carry DuckDB. Only records/duckdb and records/clickhouse import their drivers.
func TestNoDriverDependency(t *testing.T) {
	t.Parallel()
	const module = "github.com/fnapi/fnapi/examples/dataservice/"
	out, err := exec.Command("go", "list", "-deps", module+"records", module+"pvql").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages: %s", len(deps), out)
	}
	for _, dep := range deps {
		for _, driver := range []string{"github.com/duckdb/", "github.com/ClickHouse/", module + "records/duckdb", module + "records/clickhouse"} {
			if strings.HasPrefix(dep, driver) {
				t.Errorf("records or pvql depends on %s", dep)
			}
		}
	}
}
