package manage_test

import (
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestNoDriverDependency checks the layering of issue 39: the functions (manage, traffic),
// the query language (pvql) and the collector (collect) link no database driver. The state
// store's errors are package state's own (ErrUnavailable for a full disk); package
// state/statedb maps the SQLite and PostgreSQL codes to them, and only it, records/duckdb and
// records/clickhouse import a driver.
func TestNoDriverDependency(t *testing.T) {
	t.Parallel()
	const module = "github.com/fnapi/fnapi/examples/dataservice/"
	drivers := []string{"modernc.org/sqlite", "github.com/jackc/pgx", "github.com/lib/pq",
		"github.com/duckdb/", "github.com/ClickHouse/", module + "state/statedb",
		module + "records/duckdb", module + "records/clickhouse"}
	for _, dep := range testenv.Deps(t, module+"manage", module+"traffic", module+"pvql", module+"collect") {
		for _, driver := range drivers {
			if strings.HasPrefix(dep, driver) {
				t.Errorf("manage, traffic, pvql or collect depends on %s", dep)
			}
		}
	}
}
