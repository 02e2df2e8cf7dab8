package query

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Defaults of the bounds on queries (Configuration fields of the same names).
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
	// DefaultStandingGroupBudget is the part of the group budget that standing queries (alert
	// rules, followed queries) may keep between their answers, all together: half, so that
	// the other queries always have room for the largest query (DefaultMaxQueryGroups).
	DefaultStandingGroupBudget = DefaultQueryGroupBudget / 2
	// DefaultStandingGroupsPerUser is the most groups the standing queries of one user may
	// keep between their answers (a quarter of the standing budget, so that a user who fills
	// theirs leaves the others three quarters), and the most groups one alert rule's query may
	// yield (TOO-MANY-GROUPS past it, shown in the rule's error).
	DefaultStandingGroupsPerUser = DefaultStandingGroupBudget / 4
)

// newEngine returns the engine of the query function, bounded as cfg says, and sets the
// memory limit and threads of an engine in the process (records.Limiter: DuckDB; a ClickHouse
// server has its own settings).
func newEngine(ctx context.Context, st records.Store, cfg Configuration) (*pvql.Engine, error) {
	if l, ok := st.(records.Limiter); ok {
		if err := bound(ctx, l, cfg); err != nil {
			return nil, err
		}
	}
	groups := cfg.MaxQueryGroups
	if groups <= 0 {
		groups = DefaultMaxQueryGroups
	}
	budget := cfg.QueryGroupBudget
	if budget <= 0 {
		budget = DefaultQueryGroupBudget
	}
	return pvql.New(st, pvql.WithMaxGroups(groups), pvql.WithGroupBudget(max(budget, groups))), nil
}

// standingBudgets are the budgets of what standing queries keep between their answers: a
// pool for all of them, and a share of it for each user (their alert rules, as the rules'
// owner, and the followed queries whose shared computation they started). A Live that finds
// one spent keeps nothing and answers each time afresh, holding its groups only while it
// answers (pvql.WithKeepBudget); an alert rule's answer, read by the one evaluator, yields at
// most a share of groups. So standing queries never hold more than the pool between their
// answers, nor a user more than a share, and the other queries keep the rest of the group
// budget: the pool's size less a share at worst, while a rule is being answered. A share is
// made for each user the first time one of their standing queries runs, and kept (about 100
// bytes a user). Safe for concurrent use.
type standingBudgets struct {
	engine *pvql.Engine
	pool   *pvql.Budget
	share  int
	rule   int // the most groups of one rule: the share, at most one query's
	mu     sync.Mutex
	users  map[string]*standingUser
}

// standingUser is the share of one user and the engines of their standing queries.
type standingUser struct {
	rules, follows *pvql.Engine
}

// newStanding returns the budgets of the standing queries of e as cfg bounds them.
func newStanding(e *pvql.Engine, cfg Configuration) *standingBudgets {
	pool := cfg.StandingGroupBudget
	if pool <= 0 {
		pool = DefaultStandingGroupBudget
		if cfg.QueryGroupBudget > 0 {
			pool = max(cfg.QueryGroupBudget/2, 1)
		}
	}
	share := cfg.StandingGroupsPerUser
	if share <= 0 {
		share = max(pool/4, 1)
	}
	groups := cfg.MaxQueryGroups
	if groups <= 0 {
		groups = DefaultMaxQueryGroups
	}
	return &standingBudgets{engine: e, pool: pvql.NewBudget(pool), share: share, rule: min(share, groups),
		users: map[string]*standingUser{}}
}

// of returns the engines of the standing queries of user.
func (s *standingBudgets) of(user string) *standingUser {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.users[user]
	if u == nil {
		keep := pvql.WithKeepBudget(pvql.NewBudget(s.share), s.pool)
		u = &standingUser{rules: s.engine.With(keep, pvql.WithMaxGroups(s.rule)), follows: s.engine.With(keep)}
		s.users[user] = u
	}
	return u
}

// userOf names whose share a call's standing queries count against: its user ("" without one).
func userOf(ctx context.Context) string {
	if id := auth.FromContext(ctx); id != nil {
		return id.User
	}
	return ""
}

// bound sets the memory and threads of an engine in the process.
func bound(ctx context.Context, d records.Limiter, cfg Configuration) error {
	mem := cfg.QueryMemory
	if mem <= 0 {
		mem = DefaultQueryMemory
	}
	threads := cfg.QueryThreads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if err := d.SetLimits(ctx, mem, threads); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	return nil
}
