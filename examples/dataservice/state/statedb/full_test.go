package statedb_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

// TestFullDisk fills a SQLite database bounded to 256 KiB, as a full disk would: the write
// that finds no room fails with ErrUnavailable (not an internal error), and what was written
// before stays readable.
func TestFullDisk(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := open(t, t.TempDir(), statedb.WithMaxSize(256<<10))
	d := must[state.Dashboard](t)(s.CreateDashboard(ctx, state.Dashboard{Title: "d"}))
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = s.CreateWidget(ctx, state.Widget{Dashboard: d.ID, Title: "w", Kind: "table",
			Queries: []string{strings.Repeat("x", 10_000)}})
	}
	if !errors.Is(err, state.ErrUnavailable) {
		t.Fatalf("writing 1 MB into 256 KiB: %v, want ErrUnavailable", err)
	}
	if got := must[state.Dashboard](t)(s.Dashboard(ctx, d.ID)); len(got.Widgets) == 0 {
		t.Fatal("the widgets written before were lost")
	}
}
