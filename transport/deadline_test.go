package transport

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fnapi/fnapi/internal/testutil"
)

// TestCallCtx checks that a call's context behaves as context.WithTimeout's would, whether or
// not Done was asked for before the deadline.
func TestCallCtx(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"done at the deadline", func(t *testing.T) {
			ctx, end := newCallCtx(context.Background(), 20*time.Millisecond, nil)
			defer end()
			<-ctx.Done()
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				t.Fatalf("Err %v", ctx.Err())
			}
		}},
		{"cause at the deadline", func(t *testing.T) {
			ctx, end := newCallCtx(context.Background(), 20*time.Millisecond, nil)
			defer end()
			child, cancel := context.WithCancel(ctx)
			defer cancel()
			<-child.Done()
			if !errors.Is(context.Cause(ctx), context.DeadlineExceeded) || !errors.Is(context.Cause(child), context.DeadlineExceeded) {
				t.Fatalf("causes %v, %v", context.Cause(ctx), context.Cause(child))
			}
		}},
		{"Err past the deadline without Done", func(t *testing.T) {
			ctx, end := newCallCtx(context.Background(), time.Millisecond, nil)
			defer end()
			testutil.Eventually(t, "Err past the deadline", func() bool { return ctx.Err() != nil })
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				t.Fatalf("Err %v", ctx.Err())
			}
			<-ctx.Done()
		}},
		{"parent cancelled", func(t *testing.T) {
			parent, cancel := context.WithCancel(context.Background())
			ctx, end := newCallCtx(parent, time.Hour, nil)
			defer end()
			cancel()
			if !errors.Is(ctx.Err(), context.Canceled) {
				t.Fatalf("Err %v", ctx.Err())
			}
			<-ctx.Done()
		}},
		{"ended: derived contexts follow", func(t *testing.T) {
			ctx, end := newCallCtx(context.Background(), time.Hour, nil)
			type key struct{}
			child, cancel := context.WithCancel(context.WithValue(ctx, key{}, 1))
			defer cancel()
			end()
			<-child.Done()
			if !errors.Is(ctx.Err(), context.Canceled) {
				t.Fatalf("Err %v", ctx.Err())
			}
		}},
		{"ended before Done", func(t *testing.T) {
			ctx, end := newCallCtx(context.Background(), time.Hour, nil)
			end()
			if !errors.Is(ctx.Err(), context.Canceled) {
				t.Fatalf("Err %v", ctx.Err())
			}
			<-ctx.Done()
		}},
		{"deadline and values of the parent", func(t *testing.T) {
			type key struct{}
			parent, cancel := context.WithTimeout(context.WithValue(context.Background(), key{}, "v"), time.Minute)
			defer cancel()
			ctx, end := newCallCtx(parent, time.Hour, nil)
			defer end()
			pd, _ := parent.Deadline()
			if d, ok := ctx.Deadline(); !ok || !d.Equal(pd) {
				t.Fatalf("deadline %v, want the parent's %v", d, pd)
			}
			if ctx.Value(key{}) != "v" {
				t.Fatal("the parent's value is lost")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}
