package statedb_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

// BenchmarkCreateWidget measures a widget's creation on SQLite, whose quota check sums the
// bytes of the owner's dashboards and widgets, with the owner holding none or 2,000 widgets.
func BenchmarkCreateWidget(b *testing.B) {
	for _, held := range []int{0, 2000} {
		b.Run(fmt.Sprintf("owner holds %d", held), func(b *testing.B) {
			ctx := context.Background()
			s, err := statedb.OpenSQLite(ctx, b.TempDir(), statedb.WithLimits(state.Limits{WidgetsPerDashboard: 1 << 30}))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			d, err := s.CreateDashboard(ctx, state.Dashboard{Title: "d", Owner: "ann"})
			if err != nil {
				b.Fatal(err)
			}
			w := state.Widget{Dashboard: d.ID, Title: "w", Kind: "table", Queries: []string{"records BY protocol"}, Owner: "ann"}
			for range held {
				if _, err := s.CreateWidget(ctx, w); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := s.CreateWidget(ctx, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAuditQuota measures the check that runs before every audited call, for an actor
// with 10,000 events in the trail.
func BenchmarkAuditQuota(b *testing.B) {
	ctx := context.Background()
	s, err := statedb.OpenSQLite(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for range 10_000 {
		if err := s.AppendAudit(ctx, state.AuditEvent{User: "ann", Address: "::1", Action: "create-api-key"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if err := s.AuditQuota(ctx, "ann", time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
}
