package pvql

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// checkRollupQueries runs n random queries of 1 to 3 statements that the per-minute rollup
// answers (rollupQuery: its keys and filters, time(N) and periods cut at random seconds) on
// engine, against the reference answers over recs.
func checkRollupQueries(t *testing.T, engine *Engine, recs []rec, rng *rand.Rand, n int) {
	t.Helper()
	for i := range n {
		var texts []string
		var want []refQuery
		for range 1 + rng.IntN(3) {
			text, q := rollupQuery(rng)
			texts, want = append(texts, text), append(want, q)
		}
		queryAgainstReference(t, engine, i, texts, want, recs)
	}
}

// queryAgainstReference answers query i, the statements texts, on engine at testNow, checks
// each statement's answer against want's over recs, and returns the query and its answers.
func queryAgainstReference(t *testing.T, engine *Engine, i int, texts []string, want []refQuery, recs []rec) (string, []Result) {
	t.Helper()
	expr := strings.Join(texts, "; ")
	got, err := engine.Query(context.Background(), expr, time.Unix(testNow, 0), time.Hour)
	if err != nil {
		t.Fatalf("query %d %q: %v", i, expr, err)
	}
	for j, q := range want {
		if d := diffResult(got[j], q.answer(recs)); d != "" {
			t.Errorf("query %d %q, statement %d: %s", i, expr, j+1, d)
		}
	}
	return expr, got
}
