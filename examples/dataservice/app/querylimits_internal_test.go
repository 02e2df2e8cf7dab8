package app

import (
	"context"
	"testing"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
)

// TestDuckDBBounds checks that the records engine runs under the configured memory limit and
// threads, so that no query takes the process past them.
func TestDuckDBBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, err := Open(ctx, Config{DataDir: t.TempDir(), QueryMemory: 256 << 20, QueryThreads: 1,
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

// TestStandingDefaults checks the documented defaults of the standing queries' budgets (README,
// Limits): half the group budget for all, a quarter of that per user and per rule, never more
// groups for a rule than for one query.
func TestStandingDefaults(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg               Config
		pool, share, rule int
	}{
		{Config{}, 1_000_000, 250_000, 250_000},
		{Config{QueryGroupBudget: 40_000}, 20_000, 5_000, 5_000},
		{Config{StandingGroupBudget: 100, StandingGroupsPerUser: 50, MaxQueryGroups: 20}, 100, 50, 20},
	} {
		s := newStanding(nil, c.cfg)
		if s.pool.Left() != c.pool || s.share != c.share || s.rule != c.rule {
			t.Errorf("%+v: pool %d, share %d, rule %d; want %d, %d, %d", c.cfg, s.pool.Left(), s.share, s.rule, c.pool, c.share, c.rule)
		}
	}
}
