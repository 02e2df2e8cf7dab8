package pvql

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"
)

// TestGroupBudget checks that queries running at once share the engine's group budget: a query
// that finds it spent fails with ErrBusy, and every query gives back what it took.
func TestGroupBudget(t *testing.T) {
	t.Parallel()
	db := openDB(t, testRecords())
	now := time.Unix(testNow, 0)
	e := New(db, WithGroupBudget(budgetChunk))
	other := &reservation{bs: e.queryBs} // a query running meanwhile, holding the whole budget
	if err := other.need(budgetChunk); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Query(context.Background(), "records BY client.ip", now, time.Hour); !errors.Is(err, ErrBusy) {
		t.Fatalf("with the budget spent: %v, want ErrBusy", err)
	}
	other.release()
	for range 3 {
		if _, err := e.Query(context.Background(), "records BY client.ip; traffic BY server.port", now, time.Hour); err != nil {
			t.Fatalf("with the budget free: %v", err)
		}
	}
	if left := e.budget.Left(); left != budgetChunk {
		t.Fatalf("%d groups left in the budget after the queries, want all %d back", left, budgetChunk)
	}
	if err := (&reservation{}).need(1 << 40); err != nil {
		t.Fatalf("no budget: %v", err)
	}
}

// TestKeepBudget checks that what Lives keep between answers counts against their keep
// budgets, and what they read while answering against the group budget alone: Lives of one
// owner keep at most the owner's share; one that finds it spent still answers (afresh) as
// Query does, keeping nothing; queries of the engine run while the Lives keep all they may;
// closing a Live gives its groups back to every budget; and a small Live holds at most twice
// its groups.
func TestKeepBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	recs := genRecords(1, 3000, testNow-3500, testNow)
	for i := range recs {
		recs[i].cIP = netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)})
	}
	db := openDB(t, recs)
	now := time.Unix(testNow, 0)
	e := New(db, WithGroupBudget(40*budgetChunk))
	pool, share := NewBudget(20*budgetChunk), NewBudget(3*budgetChunk)
	owner := e.With(WithKeepBudget(share, pool))
	const expr = "records BY client.ip SINCE @now-3600" // 3,000 groups, kept with some detail
	want, err := e.Query(ctx, expr, now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var lives []*Live
	for range 4 {
		l, err := owner.Live(expr, db.Changes())
		if err != nil {
			t.Fatal(err)
		}
		lives = append(lives, l)
		got, err := l.Answer(ctx, now, time.Hour)
		if err != nil || len(got[0].Data) != len(want[0].Data) || len(got[0].Data) != 3000 {
			t.Fatalf("a Live of the owner: %d groups, %v; want %d", len(got[0].Data), err, len(want[0].Data))
		}
	}
	kept := 0
	for _, l := range lives {
		if l.scans != nil {
			kept++
		}
	}
	held := 3*budgetChunk - share.Left()
	if kept == 0 || kept == len(lives) || held > 3*budgetChunk || pool.Left() != 20*budgetChunk-held {
		t.Fatalf("%d of 4 Lives keep, the share holds %d, the pool %d: want some but not all kept, within the share",
			kept, held, 20*budgetChunk-pool.Left())
	}
	if left := e.budget.Left(); left != 40*budgetChunk-held {
		t.Fatalf("the group budget holds %d groups between answers, want the %d kept", 40*budgetChunk-left, held)
	}
	if _, err := e.Query(ctx, expr, now, time.Hour); err != nil {
		t.Fatalf("a query while the owner's share is spent: %v", err)
	}
	for _, l := range lives {
		l.Close()
	}
	if share.Left() != 3*budgetChunk || pool.Left() != 20*budgetChunk || e.budget.Left() != 40*budgetChunk {
		t.Fatalf("after Close: share %d, pool %d, budget %d left; want all back", share.Left(), pool.Left(), e.budget.Left())
	}

	small := New(db, WithGroupBudget(budgetChunk))
	if _, err := small.Query(ctx, "records BY protocol", now, time.Hour); err != nil {
		t.Fatal(err)
	}
	r := &reservation{bs: small.queryBs}
	for n := range 100 {
		if err := r.need(n + 1); err != nil {
			t.Fatal(err)
		}
	}
	if r.held > 2*100 {
		t.Fatalf("100 groups hold %d of the budget, want at most 200", r.held)
	}
}
