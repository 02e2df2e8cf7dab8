package pvql

import (
	"context"
	"errors"
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
	other := &reservation{b: e.budget} // a query running meanwhile, holding the whole budget
	if err := other.need(1); err != nil {
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
	if left := e.budget.left.Load(); left != budgetChunk {
		t.Fatalf("%d groups left in the budget after the queries, want all %d back", left, budgetChunk)
	}
	if err := (&reservation{}).need(1 << 40); err != nil {
		t.Fatalf("no budget: %v", err)
	}
}
