package records

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fnapi/fnapi/internal/testutil"
)

// TestReadPiecesOneRowAtATime checks that the pieces of a Read run side by side but hand their
// rows to the caller one at a time, every row once, and that the first error (of a piece or of
// the caller) stops the others and is the one returned.
func TestReadPiecesOneRowAtATime(t *testing.T) {
	t.Parallel()
	ps := make([]piece, 9)
	for i := range ps {
		ps[i] = piece{from: int64(i)}
	}
	var running, most atomic.Int32
	// Each piece waits for a second one to run beside it before its rows, so that they run
	// side by side, or fail to, whatever the scheduler does.
	both := make(chan struct{})
	var bothOnce sync.Once
	read := func(ctx context.Context, pc piece, fn func(*Row) error) error {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if n >= 2 {
			bothOnce.Do(func() { close(both) })
		}
		select {
		case <-both:
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(testutil.Wait):
			return errors.New("no second piece ran beside this one")
		}
		for k := range 50 {
			if pc.from == 7 && k == 20 {
				return errors.New("piece 7 fails")
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(&Row{Query: int(pc.from), Keys: []Value{{Lo: uint64(k)}}}); err != nil {
				return err
			}
		}
		return nil
	}
	var inside atomic.Int32
	seen := map[[2]int]bool{}
	collect := func(r *Row) error {
		if inside.Add(1) != 1 {
			t.Error("two rows handed to the caller at once")
		}
		defer inside.Add(-1)
		k := [2]int{r.Query, int(r.Keys[0].Lo)}
		if seen[k] {
			t.Errorf("row %v twice", k)
		}
		seen[k] = true
		return nil
	}
	if err := readPieces(context.Background(), ps[:7], read, collect); err != nil || len(seen) != 7*50 {
		t.Fatalf("7 pieces of 50 rows: %d rows, %v", len(seen), err)
	}
	if most.Load() < 2 || most.Load() > maxReaders {
		t.Errorf("%d pieces read at once, want 2 to %d", most.Load(), maxReaders)
	}
	if err := readPieces(context.Background(), ps, read, func(*Row) error { return nil }); err == nil || err.Error() != "piece 7 fails" {
		t.Errorf("a failing piece: %v", err)
	}
	stop := errors.New("enough")
	rows := 0
	err := readPieces(context.Background(), ps, read, func(*Row) error {
		if rows++; rows == 30 {
			return stop
		}
		return nil
	})
	if err != stop || rows != 30 {
		t.Errorf("the caller's error after %d rows: %v", rows, err)
	}
}
