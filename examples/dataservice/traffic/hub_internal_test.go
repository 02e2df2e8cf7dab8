package traffic

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/internal/testutil"
)

// funcFollower is a Follower answering with its function.
type funcFollower func(ctx context.Context) ([]pvql.Result, error)

func (f funcFollower) Answer(ctx context.Context) ([]pvql.Result, error) { return f(ctx) }
func (funcFollower) Close()                                              {}

// numbered answers with the number of the call, in AccumulatedTime.
func numbered(calls *atomic.Int64, gate <-chan struct{}) startFollower {
	return func(string) Follower {
		return funcFollower(func(ctx context.Context) ([]pvql.Result, error) {
			<-gate
			return []pvql.Result{{Meta: pvql.Meta{AccumulatedTime: calls.Add(1)}}}, nil
		})
	}
}

// waitFollowers waits until the run of k has n followers.
func waitFollowers(t *testing.T, h *hub, k followKey, n int) {
	t.Helper()
	testutil.Eventually(t, fmt.Sprintf("%d followers", n), func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		r := h.runs[k]
		return r != nil && r.followers == n
	})
}

// TestHubSharesOneComputation checks that the followers of one expression (written with
// other spacing) at one interval get the same answers from one computation, and that the
// computation ends with its last follower.
func TestHubSharesOneComputation(t *testing.T) {
	t.Parallel()
	var h hub
	var calls atomic.Int64
	gate := make(chan struct{})
	compute := numbered(&calls, gate)
	const n = 20
	got := make([][]int64, n)
	var wg sync.WaitGroup
	for i := range n {
		expr := "traffic  BY application"
		if i%2 == 0 {
			expr = "traffic BY\tapplication "
		}
		wg.Go(func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			err := h.follow(ctx, expr, 10*time.Millisecond, compute, func(res []pvql.Result) error {
				if got[i] = append(got[i], res[0].Meta.AccumulatedTime); len(got[i]) == 2 {
					cancel()
				}
				return nil
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("follower %d ended with %v", i, err)
			}
		})
	}
	waitFollowers(t, &h, followKey{"traffic BY application", 10 * time.Millisecond}, n)
	close(gate)
	wg.Wait()
	for i, g := range got {
		if len(g) != 2 || g[0] != 1 || g[1] <= 1 {
			t.Errorf("follower %d got answers %v, want the first computation's (1) then a later one", i, g)
		}
	}
	if c := calls.Load(); c >= 2*n {
		t.Errorf("%d computations for %d followers of 2 answers each: not shared", c, n)
	}
	if len(h.runs) != 0 {
		t.Errorf("%d runs left after every follower left", len(h.runs))
	}
}

// TestHubSeparatesIntervals checks that followers of another interval or expression do not
// share a computation.
func TestHubSeparatesIntervals(t *testing.T) {
	t.Parallel()
	var h hub
	gate := make(chan struct{})
	defer close(gate)
	var calls atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, f := range []struct {
		expr     string
		interval time.Duration
	}{{"traffic", time.Second}, {"traffic", 2 * time.Second}, {"records", time.Second}} {
		wg.Go(func() {
			h.follow(ctx, f.expr, f.interval, numbered(&calls, gate), func([]pvql.Result) error { return nil })
		})
		waitFollowers(t, &h, followKey{f.expr, f.interval}, 1)
	}
	if len(h.runs) != 3 {
		t.Errorf("%d runs for three distinct followers", len(h.runs))
	}
	cancel()
	wg.Wait()
}

// TestHubEndsEveryFollowerOnError checks that a failed computation ends each of its followers
// with its error, and that a later follower starts afresh.
func TestHubEndsEveryFollowerOnError(t *testing.T) {
	t.Parallel()
	var h hub
	boom := errors.New("boom")
	gate := make(chan struct{})
	failing := func(string) Follower {
		return funcFollower(func(ctx context.Context) ([]pvql.Result, error) {
			<-gate
			return nil, boom
		})
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			err := h.follow(context.Background(), "traffic", 5*time.Millisecond, failing, func([]pvql.Result) error { return nil })
			if !errors.Is(err, boom) {
				t.Errorf("follower ended with %v, want the computation's error", err)
			}
		})
	}
	waitFollowers(t, &h, followKey{"traffic", 5 * time.Millisecond}, 3)
	close(gate)
	wg.Wait()
	var calls atomic.Int64
	open := make(chan struct{})
	close(open)
	err := h.follow(context.Background(), "traffic", 5*time.Millisecond, numbered(&calls, open), func([]pvql.Result) error { return boom })
	if !errors.Is(err, boom) || calls.Load() == 0 {
		t.Errorf("a follower after the failure: %v after %d computations, want a fresh run", err, calls.Load())
	}
}

// TestHubLatest checks that a joining follower can start from the shared computation's last
// answer, once there is one and while someone follows.
func TestHubLatest(t *testing.T) {
	t.Parallel()
	var h hub
	if _, ok := h.latest("traffic", time.Second); ok {
		t.Fatal("an answer before anyone follows")
	}
	var calls atomic.Int64
	gate := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan struct{}, 100)
	done := make(chan error)
	go func() {
		done <- h.follow(ctx, "traffic  ", 5*time.Millisecond, numbered(&calls, gate), func([]pvql.Result) error {
			got <- struct{}{}
			return nil
		})
	}()
	waitFollowers(t, &h, followKey{"traffic", 5 * time.Millisecond}, 1)
	if _, ok := h.latest(" traffic", 5*time.Millisecond); ok {
		t.Error("an answer before the first computation")
	}
	close(gate)
	<-got
	if res, ok := h.latest(" traffic", 5*time.Millisecond); !ok || res[0].Meta.AccumulatedTime < 1 {
		t.Errorf("after an answer, latest gives %v, %v", res, ok)
	}
	cancel()
	<-done
	if _, ok := h.latest("traffic", 5*time.Millisecond); ok {
		t.Error("an answer after the last follower left")
	}
}

// closedFollower counts its answers and whether it was closed.
type closedFollower struct {
	expr    string
	answers atomic.Int64
	closed  atomic.Bool
}

func (f *closedFollower) Answer(context.Context) ([]pvql.Result, error) {
	return []pvql.Result{{Meta: pvql.Meta{AccumulatedTime: f.answers.Add(1)}}}, nil
}
func (f *closedFollower) Close() { f.closed.Store(true) }

// TestHubStartsOneFollowerPerRun checks that a run starts one Follower, on the first
// follower's expression, keeps it for every answer, and closes it when the last follower
// leaves.
func TestHubStartsOneFollowerPerRun(t *testing.T) {
	t.Parallel()
	var h hub
	var started []*closedFollower
	var mu sync.Mutex
	start := func(expr string) Follower {
		mu.Lock()
		defer mu.Unlock()
		f := &closedFollower{expr: expr}
		started = append(started, f)
		return f
	}
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i, expr := range []string{"traffic  BY application", "traffic BY application "} {
		wg.Go(func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			n := 0
			h.follow(ctx, expr, time.Millisecond, start, func([]pvql.Result) error {
				<-gate
				if n++; n == 3 {
					cancel()
				}
				return nil
			})
		})
		waitFollowers(t, &h, followKey{"traffic BY application", time.Millisecond}, i+1)
	}
	close(gate)
	wg.Wait()
	testutil.Eventually(t, "the run to close its Follower as it ends", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.runs) == 0 && started[0].closed.Load()
	})
	if len(started) != 1 || started[0].expr != "traffic  BY application" || started[0].answers.Load() < 3 {
		t.Errorf("%d Followers started; the first on %q answered %d times", len(started), started[0].expr, started[0].answers.Load())
	}
}

// TestNormalise checks which expressions followers share: those that differ only in white
// space outside quoted strings.
func TestNormalise(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"  traffic\tBY  application\n", "traffic BY application"},
		{"records WHERE application = 'a  b'", "records WHERE application = 'a  b'"},
		{`records WHERE application = "it\"s  x"   AND  protocol=tcp`, `records WHERE application = "it\"s  x" AND protocol=tcp`},
		{`records WHERE application = 'x\'  y'  `, `records WHERE application = 'x\'  y'`},
	} {
		if got := normalise(tc.in); got != tc.want {
			t.Errorf("normalise(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzNormalise checks that matching followers never changes a query: an expression that
// parses still parses once normalised, to the same statements, and normalising twice changes
// nothing more.
func FuzzNormalise(f *testing.F) {
	for _, s := range []string{"traffic  BY application", `records WHERE application = 'a  b'`,
		`records WHERE application = "x\"  y" ; traffic`, "  packets\tBY time(60) TOP 3\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		n := normalise(expr)
		if normalise(n) != n {
			t.Fatalf("normalise(%q) = %q, which normalises to %q", expr, n, normalise(n))
		}
		want, err := pvql.Parse(expr)
		if err != nil {
			return
		}
		got, err := pvql.Parse(n)
		if err != nil {
			t.Fatalf("%q parses, normalised %q does not: %v", expr, n, err)
		}
		// The same statements: their canonical shapes and families (a literal's place in the
		// text, which Family cuts at, moves with the spaces before it).
		if len(got) != len(want) {
			t.Fatalf("%q and normalised %q parse to %d and %d statements", expr, n, len(want), len(got))
		}
		for i := range got {
			if got[i].Shape() != want[i].Shape() || got[i].Family() != want[i].Family() {
				t.Fatalf("%q and normalised %q parse differently: %q (%q) and %q (%q)", expr, n,
					want[i].Shape(), want[i].Family(), got[i].Shape(), got[i].Family())
			}
		}
	})
}
