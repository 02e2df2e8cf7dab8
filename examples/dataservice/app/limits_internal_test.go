package app

import (
	"context"
	"testing"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/examples/dataservice/query"
	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
)

// TestDuckDBBounds checks that the records engine runs under the configured memory limit and
// threads, so that no query takes the process past them.
func TestDuckDBBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, err := Open(ctx, Config{DataDir: t.TempDir(), Query: query.Configuration{QueryMemory: 256 << 20, QueryThreads: 1},
		Auth: []auth.Option{auth.WithAdminPassword("correct horse battery staple")}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	mem, threads, err := a.records.(*duckdb.Store).Limits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if mem != "256.0 MiB" || threads != 1 {
		t.Fatalf("memory_limit %q, threads %d; want 256.0 MiB and 1", mem, threads)
	}
}
