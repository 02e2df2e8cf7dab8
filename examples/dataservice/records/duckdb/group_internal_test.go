package duckdb

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// queued waits until n calls wait in g's queue.
func queued(g *group, n int) {
	for {
		g.mu.Lock()
		k := len(g.queue)
		g.mu.Unlock()
		if k == n {
			return
		}
		runtime.Gosched()
	}
}

// groupOf runs n ingestGrouped calls that queue while the write token is held, then releases
// it; it returns each call's result and the groups commit was called with.
func groupOf(t *testing.T, n int, fail error) ([]error, [][]*member) {
	t.Helper()
	s := &Store{write: make(chan struct{}, 1)}
	var mu sync.Mutex
	var groups [][]*member
	commit := func(_ context.Context, ms []*member) error {
		mu.Lock()
		defer mu.Unlock()
		groups = append(groups, ms)
		return fail
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		m := s.group.join(make([]records.Record, 1), "")
		wg.Go(func() { errs[i] = s.ingestGrouped(context.Background(), m, commit) })
	}
	queued(&s.group, n)
	s.unlock()
	wg.Wait()
	return errs, groups
}

// TestGroupCommitsWaitingBatchesTogether: batches that wait while another commits go in one
// transaction, and each call has its answer.
func TestGroupCommitsWaitingBatchesTogether(t *testing.T) {
	t.Parallel()
	errs, groups := groupOf(t, 5, nil)
	if len(groups) != 1 || len(groups[0]) != 5 {
		t.Fatalf("groups of %v, want one of 5", len(groups))
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
}

// TestGroupCommitFailureReachesEveryMember: when the group's transaction fails, every call in
// it gets the error.
func TestGroupCommitFailureReachesEveryMember(t *testing.T) {
	t.Parallel()
	bad := errors.New("disk full")
	errs, groups := groupOf(t, 4, bad)
	if len(groups) != 1 {
		t.Fatalf("%d groups, want 1", len(groups))
	}
	for i, err := range errs {
		if !errors.Is(err, bad) {
			t.Errorf("call %d: %v, want %v", i, err, bad)
		}
	}
}

// TestGroupBoundsRecords: a group stops before maxGroup records; the rest form the next group.
func TestGroupBoundsRecords(t *testing.T) {
	t.Parallel()
	var g group
	a := g.join(make([]records.Record, maxGroup/2), "")
	b := g.join(make([]records.Record, maxGroup/2), "")
	c := g.join(make([]records.Record, 1), "")
	ms := g.take(b)
	if len(ms) != 2 || ms[0] != b || ms[1] != a {
		t.Fatalf("took %d members", len(ms))
	}
	if g.take(a) != nil {
		t.Fatal("a member was taken twice")
	}
	if len(g.queue) != 1 || g.queue[0] != c {
		t.Fatalf("queue left %d members", len(g.queue))
	}
}

// TestGroupCallerLeavesWhenCancelled: a call whose context ends while it waits leaves the queue
// with its context's error, and no group commits its batch.
func TestGroupCallerLeavesWhenCancelled(t *testing.T) {
	t.Parallel()
	s := &Store{write: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := s.group.join(make([]records.Record, 1), "")
	err := s.ingestGrouped(ctx, m, func(context.Context, []*member) error {
		t.Error("committed a cancelled batch")
		return nil
	})
	if !errors.Is(err, context.Canceled) || len(s.group.queue) != 0 {
		t.Fatalf("err %v, %d queued", err, len(s.group.queue))
	}
}
