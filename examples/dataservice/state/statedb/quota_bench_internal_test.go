package statedb

import (
	"context"
	"fmt"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// BenchmarkMakeBytes measures the byte quota's check alone (a sum over the owner's
// dashboards and widgets, by index), in a transaction rolled back, so without the commit's
// fsync that dominates BenchmarkCreateWidget.
func BenchmarkMakeBytes(b *testing.B) {
	for _, held := range []int{0, 2000} {
		b.Run(fmt.Sprintf("owner holds %d", held), func(b *testing.B) {
			ctx := context.Background()
			s, err := OpenSQLite(ctx, b.TempDir(), WithLimits(state.Limits{WidgetsPerDashboard: 1 << 30}))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			d, err := s.CreateDashboard(ctx, state.Dashboard{Title: "d", Owner: "ann"})
			if err != nil {
				b.Fatal(err)
			}
			for range held {
				if _, err := s.CreateWidget(ctx, state.Widget{Dashboard: d.ID, Title: "w", Kind: "table", Owner: "ann"}); err != nil {
					b.Fatal(err)
				}
			}
			tx, err := s.rw.BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer tx.Rollback() //nolint:errcheck // nothing written
			b.ResetTimer()
			for b.Loop() {
				if err := s.makeBytes(ctx, tx, "ann", "new", 100); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
