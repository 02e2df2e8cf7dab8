package app

import (
	"context"
	"fmt"
	"runtime"

	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/traffic"
)

// Defaults of the bounds on queries (Config fields of the same names).
const (
	// DefaultMaxQueryGroups is the most groups the statements of one query may yield together:
	// about 300 MB of answer at most (450 MB grouped by every key), whatever the number of
	// statements.
	DefaultMaxQueryGroups = 1_000_000
	// DefaultQueryGroupBudget is the most groups all the queries running at once may hold
	// together (about 600 to 900 MB); a query that finds it spent answers RATE-LIMITED.
	DefaultQueryGroupBudget = 2_000_000
	// DefaultQueryMemory is DuckDB's memory_limit, in bytes: the most memory the records
	// engine takes for all queries and ingests together. Past it, DuckDB spills large
	// aggregations to disk (records.duckdb.tmp) or fails the query, rather than the process
	// growing; 1 GiB keeps the whole service within a small machine's memory.
	DefaultQueryMemory = 1 << 30
)

// queryEngine returns the engine of the query function, bounded as cfg says, and sets the
// memory limit and threads of an engine in the process (records.Limiter: DuckDB; a ClickHouse
// server has its own settings).
func (a *App) queryEngine(ctx context.Context) (*pvql.Engine, error) {
	if l, ok := a.records.(records.Limiter); ok {
		if err := a.bound(ctx, l); err != nil {
			return nil, err
		}
	}
	groups := a.cfg.MaxQueryGroups
	if groups <= 0 {
		groups = DefaultMaxQueryGroups
	}
	budget := a.cfg.QueryGroupBudget
	if budget <= 0 {
		budget = DefaultQueryGroupBudget
	}
	return pvql.New(a.records, pvql.WithMaxGroups(groups), pvql.WithGroupBudget(max(budget, groups))), nil
}

// bound sets the memory and threads of an engine in the process.
func (a *App) bound(ctx context.Context, d records.Limiter) error {
	mem := a.cfg.QueryMemory
	if mem <= 0 {
		mem = DefaultQueryMemory
	}
	threads := a.cfg.QueryThreads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if err := d.SetLimits(ctx, mem, threads); err != nil {
		return fmt.Errorf("app: %w", err)
	}
	return nil
}

// maxFollows is the most followed queries one caller may hold open.
func (a *App) maxFollows() int {
	if a.cfg.MaxFollows > 0 {
		return a.cfg.MaxFollows
	}
	return traffic.DefaultMaxFollows
}
