package pvql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// sharedQuery returns a random expression of 2 to 7 statements, most of which share a WHERE,
// a layer and a period (so that they are read together), and the meaning of each statement.
func sharedQuery(rng *rand.Rand) ([]string, []refQuery) {
	common := func() (string, refQuery) {
		q := refQuery{since: testNow - 3600, until: testNow}
		var clauses []string
		if rng.IntN(2) == 0 {
			f := randomFilter(rng, 2)
			clauses = append(clauses, "WHERE "+f.text)
			q.where = f.fn
		}
		if rng.IntN(2) == 0 {
			back := 600 + rng.Int64N(7000)
			q.since = testNow - back
			clauses = append(clauses, fmt.Sprintf("SINCE @now-%d", back))
		}
		return strings.Join(clauses, " "), q
	}
	shared, sq := common()
	var texts []string
	var want []refQuery
	for range 2 + rng.IntN(6) {
		tail, q := shared, sq
		if rng.IntN(4) == 0 {
			tail, q = common()
		}
		var values []string
		for range 1 + rng.IntN(2) {
			v := randomValues[rng.IntN(len(randomValues))]
			values = append(values, v.text)
			q.values = append(q.values, v.fn)
		}
		keys, refKeys := randomBy(rng)
		q.keys = refKeys
		text := strings.Join(values, ", ")
		if len(keys) > 0 {
			text += " BY " + strings.Join(keys, ", ")
		}
		if rng.IntN(4) == 0 {
			h := randomHaving(rng)
			text += " HAVING " + h.text
			q.having = func(s refSums, _ []float64) bool { return h.fn(s) }
		}
		if rng.IntN(3) == 0 {
			q.top = 1 + rng.IntN(5)
			text += fmt.Sprintf(" TOP %d", q.top)
		}
		texts = append(texts, text+" "+tail)
		want = append(want, q)
	}
	return texts, want
}

// TestSharedScanAnswersAsEachStatement checks that the statements of one query, read together
// (one pass for those of a period and WHERE, with grouping sets in DuckDB), answer what each
// answers alone and what the reference computes.
func TestSharedScanAnswersAsEachStatement(t *testing.T) {
	t.Parallel()
	recs := testRecords()
	engine := New(openDB(t, recs), WithStreamSlices(2))
	rng := rand.New(rand.NewPCG(7, 13))
	now := time.Unix(testNow, 0)
	for i := range 60 {
		texts, want := sharedQuery(rng)
		expr := strings.Join(texts, "; ")
		got, err := engine.Query(context.Background(), expr, now, time.Hour)
		if err != nil {
			t.Fatalf("query %d %q: %v", i, expr, err)
		}
		for j, text := range texts {
			alone, err := engine.Query(context.Background(), text, now, time.Hour)
			if err != nil {
				t.Fatalf("query %d, statement %q alone: %v", i, text, err)
			}
			if d := diffResult(got[j], alone[0]); d != "" {
				t.Errorf("query %d %q, statement %d differs from its answer alone: %s", i, expr, j+1, d)
			}
			if d := diffResult(got[j], want[j].answer(recs)); d != "" {
				t.Errorf("query %d %q, statement %d: %s", i, expr, j+1, d)
			}
		}
		checkStream(t, engine, i, expr, got)
	}
}

// TestSharedScanKeyOrders checks statements read together that group by the same keys in
// other orders each answer as alone: in
// DuckDB they are one grouping set answering each.
func TestSharedScanKeyOrders(t *testing.T) {
	t.Parallel()
	engine := New(openDB(t, testRecords()))
	now := time.Unix(testNow, 0)
	texts := []string{"traffic BY application, protocol", "records BY protocol, application",
		"traffic BY time(60), application", "records BY application, time(60)", "traffic", "packets BY protocol, application TOP 3"}
	got, err := engine.Query(context.Background(), strings.Join(texts, "; "), now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		alone, err := engine.Query(context.Background(), text, now, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if d := diffResult(got[i], alone[0]); d != "" {
			t.Errorf("statement %d %q differs from its answer alone: %s", i+1, text, d)
		}
	}
}
