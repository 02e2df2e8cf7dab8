package query

import "testing"

// TestStandingDefaults checks the documented defaults of the standing queries' budgets (README,
// Limits): half the group budget for all, a quarter of that per user and per rule, never more
// groups for a rule than for one query.
func TestStandingDefaults(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg               Configuration
		pool, share, rule int
	}{
		{Configuration{}, 1_000_000, 250_000, 250_000},
		{Configuration{QueryGroupBudget: 40_000}, 20_000, 5_000, 5_000},
		{Configuration{StandingGroupBudget: 100, StandingGroupsPerUser: 50, MaxQueryGroups: 20}, 100, 50, 20},
	} {
		s := newStanding(nil, c.cfg)
		if s.pool.Left() != c.pool || s.share != c.share || s.rule != c.rule {
			t.Errorf("%+v: pool %d, share %d, rule %d; want %d, %d, %d", c.cfg, s.pool.Left(), s.share, s.rule, c.pool, c.share, c.rule)
		}
	}
}
