// Package statetest checks implementations of state.Store against its contract, as
// fstest does for file systems: the embedded SQLite store and the PostgreSQL one run the same
// suite.
package statetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

// Opener returns an empty store made with opts, closed when the test ends.
type Opener func(t *testing.T, opts ...statedb.Option) state.Store

// Run checks the stores that open returns (an empty one for each subtest) against the
// contract of state.Store and the guarantees of the state package's documentation.
func Run(t *testing.T, open Opener) {
	clocked := func(t *testing.T, opts ...statedb.Option) state.Store {
		c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		return open(t, append([]statedb.Option{statedb.WithClock(c.now)}, opts...)...)
	}
	t.Run("round trip", func(t *testing.T) { roundTrip(t, clocked) })
	t.Run("not found", func(t *testing.T) { notFound(t, clocked) })
	t.Run("all or nothing", func(t *testing.T) { allOrNothing(t, clocked) })
	t.Run("concurrent updates", func(t *testing.T) { concurrentUpdates(t, clocked) })
	t.Run("audit trail", func(t *testing.T) { audit(t, clocked) })
	t.Run("quotas per owner", func(t *testing.T) { quotas(t, clocked) })
	t.Run("made at one instant", func(t *testing.T) { oneInstant(t, open) })
}

// clock is a fake clock that moves one second each time it is read, so that every write
// gets a later time than the one before.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// Snap is everything a store holds: its dashboards with their widgets, and its configuration.
type Snap struct {
	Dashboards []state.Dashboard
	Config     map[string]string
}

// Snapshot returns everything s holds.
func Snapshot(t *testing.T, s state.Store) Snap {
	t.Helper()
	ctx := context.Background()
	var out Snap
	for _, d := range must[[]state.Dashboard](t)(s.Dashboards(ctx)) {
		out.Dashboards = append(out.Dashboards, must[state.Dashboard](t)(s.Dashboard(ctx, d.ID)))
	}
	out.Config = must[map[string]string](t)(s.Config(ctx))
	return out
}
