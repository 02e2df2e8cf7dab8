package pvql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// rollupKeyTexts and rollupFilters are the keys and filters DuckDB's rollups hold: per minute
// and per hour the first three, per hour the addresses too.
var (
	rollupKeyTexts = []string{"protocol", "application", "server.port", "server.ip", "client.ip"}
	rollupFilters  = []string{"protocol", "server.port", "application", "server.ip", "client.ip"}
)

// rollupQuery returns a random statement whose keys, WHERE and layer read columns a rollup
// holds (time buckets of any width: those a rollup cannot answer read the records) over a
// period cut at random seconds, and its meaning.
func rollupQuery(rng *rand.Rand) (string, refQuery) {
	q := refQuery{}
	v := randomValues[rng.IntN(len(randomValues))]
	text := v.text
	q.values = append(q.values, v.fn)
	var keys []string
	for _, k := range randomKeys {
		if slices.Contains(rollupKeyTexts, k.text) && rng.IntN(3) == 0 {
			keys = append(keys, k.text)
			q.keys = append(q.keys, k.key)
		}
	}
	if rng.IntN(2) == 0 {
		k := randomTimeKeys[rng.IntN(len(randomTimeKeys))]
		keys = append([]string{k.text}, keys...)
		q.keys = append([]refKey{k.key}, q.keys...)
	}
	if len(keys) > 0 {
		text += " BY " + strings.Join(keys, ", ")
	}
	var where []func(r *rec) bool
	if rng.IntN(2) == 0 {
		var fs []partFilter
		for _, f := range randomFilters {
			if slices.ContainsFunc(rollupFilters, func(p string) bool { return strings.HasPrefix(f.text, p+" ") }) {
				fs = append(fs, f)
			}
		}
		f := fs[rng.IntN(len(fs))]
		text += " WHERE " + f.text
		where = append(where, f.fn)
	}
	if rng.IntN(4) == 0 {
		text += " FROM udp"
		where = append(where, func(r *rec) bool { return r.proto == 17 })
	}
	if len(where) > 0 {
		q.where = func(r *rec) bool { return !slices.ContainsFunc(where, func(w func(*rec) bool) bool { return !w(r) }) }
	}
	q.since = testNow - 7300 + rng.Int64N(7000)
	q.until = q.since + rng.Int64N(testNow+100-q.since)
	return text + fmt.Sprintf(" SINCE %d UNTIL %d", q.since, q.until), q
}

// TestRollupAnswersAsRecords checks the statements the rollups answer (the whole hours of
// their period from an hourly rollup, the cut minutes from a per-minute one, the cut seconds
// from the records) against the reference, on periods cut at random seconds: with the
// background rollup's mark behind (nothing rolled), then mid-way (rolled but for the newest
// hour, which waits for records ten minutes past its end) with the older records arriving
// after the step, below its mark, and after a retention that cuts a minute and an hour.
func TestRollupAnswersAsRecords(t *testing.T) {
	t.Parallel()
	recs := testRecords()
	s := openDB(t, nil)
	older := func(r rec) bool { return r.time < testNow-3000 }
	newer := slices.DeleteFunc(slices.Clone(recs), older)
	load(t, s, newer)
	engine := New(s, WithStreamSlices(3))
	rng := rand.New(rand.NewPCG(21, 34))
	checkRollupQueries(t, engine, newer, rng, 60)
	if err := s.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	load(t, s, slices.DeleteFunc(slices.Clone(recs), func(r rec) bool { return !older(r) }))
	checkRollupQueries(t, engine, recs, rng, 120)
	cut := testNow - 5000 + 17 // not a whole minute nor a whole hour
	if _, err := s.DeleteBefore(context.Background(), cut); err != nil {
		t.Fatal(err)
	}
	kept := slices.DeleteFunc(slices.Clone(recs), func(r rec) bool { return r.time < cut })
	checkRollupQueries(t, engine, kept, rng, 120)
}
