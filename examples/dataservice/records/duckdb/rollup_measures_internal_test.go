package duckdb

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestOpenAddsRollupMeasures opens a file of schema version 8, whose rollups keep bytes,
// packets and records only, holding capture records, some rolled up in the background and
// some not yet: steps 9 and 10 give every rollup the measures and histograms of the records
// it holds, so that queries of the measures read the rollups (checkRollups fails when a query
// finds no rollup) and answer as the records do, before and after more records come.
func TestOpenAddsRollupMeasures(t *testing.T) {
	t.Parallel()
	stepByHand(t)
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	const from = int64(1_699_992_000)
	rng := rand.New(rand.NewPCG(9, 3))
	if err := s.Ingest(ctx, randomRecords(rng, 3000, from, 3*3600)); err != nil {
		t.Fatal(err)
	}
	if err := s.catchUp(ctx, from+2*3600+rollupSlack); err != nil || hostsMark(s) != from+2*3600 {
		t.Fatalf("catching up: mark %d, want %d (%v)", hostsMark(s), from+2*3600, err)
	}
	// The file as version 8 left it: rollups without the measures' columns.
	asVersion10(t, s)
	for _, r := range s.rollups {
		for _, c := range append(append([]records.Column{}, records.RollupMeasures...), records.RollupHists...) {
			if _, err := s.db.ExecContext(ctx, "ALTER TABLE "+r.Table+" DROP COLUMN "+c.Name()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := s.db.ExecContext(ctx, "UPDATE "+schemaTable+" SET version = 8"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if m := hostsMark(s); m != from+2*3600 {
		t.Errorf("mark %d after migrating, want %d", m, from+2*3600)
	}
	measures := func(when string) {
		t.Helper()
		for range 30 {
			q := randomRollupQuery(rng)
			if len(q.Hists) == 0 {
				q.Hists = []records.Column{records.ColSRTHist}
			}
			q.Sums = append(q.Sums, records.SumSRT, records.SumSRTSamples, records.SumResets)
			lo := from - 100 + rng.Int64N(4*3600)
			hi := lo + rng.Int64N(from+4*3600-lo)
			if raw, rolled := sumsBy(t, s, lo, hi, true, q), sumsBy(t, s, lo, hi, false, q); !reflect.DeepEqual(raw, rolled) {
				t.Fatalf("%s: %+v over [%d, %d): with the rollups %v, from the records %v", when, q, lo, hi, rolled, raw)
			}
		}
	}
	measures("migrated")
	checkRollups(t, s, rng, "migrated", from, from+3*3600, 20)
	if err := s.Ingest(ctx, randomRecords(rng, 500, from, 4*3600)); err != nil {
		t.Fatal(err)
	}
	if err := s.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	measures("caught up")
	checkRollups(t, s, rng, "caught up", from, from+4*3600, 20)
}

// TestRollupHistSaturates checks that a rollup row's histogram entry saturates at
// MaxHistCount, summed in Go (ingest) as in SQL (mergeHists), where records of MaxCount samples
// in one bucket would wrap an entry's count around.
func TestRollupHistSaturates(t *testing.T) {
	t.Parallel()
	var row, rec rollupRow
	r := records.Record{SRT: records.Timing{Sum: records.MaxCount, Samples: records.MaxCount}}
	rec.addRecord(&r, true)
	for range 3000 {
		row.add(&rec)
	}
	if b := row.hists[3].Buckets(); len(b) != 1 || b[0].Count != records.MaxHistCount {
		t.Errorf("summed in Go: %v, want one bucket of %d", b, uint64(records.MaxHistCount))
	}
	s := openTemp(t)
	var b, g int64
	var got []any
	entry := uint64(records.MaxCount)<<records.HistShift | 5
	err := s.db.QueryRowContext(context.Background(), mergeHists("(SELECT 0 AS g, [CAST(? AS UBIGINT)] AS h FROM range(3000))", "true", "0", []string{"g"}, "h"),
		fmt.Sprint(entry)).Scan(&b, &g, &got)
	if want := uint64(records.MaxHistCount)<<records.HistShift | 5; err != nil || len(got) != 1 || got[0] != want {
		t.Errorf("summed in SQL: %v (%v), want [%d]", got, err, want)
	}
}

// TestMergeHists checks mergeHists against a merge in Go: random groups of rows, each row's
// entries in any order, an index several times, some rows empty, some counts near
// MaxHistCount so that their sums saturate; each group merged is one entry per bucket, its
// counts added up, by increasing index, and a group without entries has no row.
func TestMergeHists(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(24, 95))
	var values []string
	want := map[int][]uint64{} // of each group that has entries
	for g := range 40 {
		counts := map[uint64]uint64{}
		rows := rng.IntN(30)
		if g%3 == 0 {
			rows = 1 + rng.IntN(3) // few rows, perhaps only empty ones
		}
		for range rows {
			entries := []string{}
			for range rng.IntN(50) {
				i, n := uint64(rng.IntN(histogram.Buckets)), 1+rng.Uint64N(1000)
				if rng.IntN(20) == 0 {
					n = records.MaxHistCount - rng.Uint64N(3)
				}
				if g%2 == 0 {
					i %= 8 // few buckets, many entries each
				}
				counts[i] = min(counts[i]+n, records.MaxHistCount)
				entries = append(entries, fmt.Sprint(n<<records.HistShift|i))
			}
			values = append(values, fmt.Sprintf("(%d, [%s]::UBIGINT[])", g, strings.Join(entries, ", ")))
		}
		if len(counts) == 0 {
			continue
		}
		want[g] = []uint64{}
		for _, i := range slices.Sorted(maps.Keys(counts)) {
			want[g] = append(want[g], counts[i]<<records.HistShift|i)
		}
	}
	if _, err := s.db.ExecContext(ctx, "CREATE TABLE h AS SELECT * FROM (VALUES "+strings.Join(values, ", ")+") AS v(g, h)"); err != nil {
		t.Fatal(err)
	}
	rows, err := s.db.QueryContext(ctx, mergeHists("h", "g >= 0", "1", []string{"g"}, "h"))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var b, g int
		var got []any
		if err := rows.Scan(&b, &g, &got); err != nil {
			t.Fatal(err)
		}
		entries := []uint64{}
		for _, e := range got {
			entries = append(entries, e.(uint64))
		}
		if !slices.Equal(entries, want[g]) {
			t.Errorf("group %d: merged %v, want %v", g, entries, want[g])
		}
		seen++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if seen != len(want) {
		t.Errorf("%d groups, want %d", seen, len(want))
	}
}

// TestOpenAddsHistRollups opens a file of schema version 13, made before the rollups per 10
// minutes and per 6 hours (tenMinutes, sixHours): step 14 creates them summed from the
// records, so that percentiles read them and answer as the records do, over periods that
// cut 10 minutes and 6 hours at either end, before and after more records come.
func TestOpenAddsHistRollups(t *testing.T) {
	t.Parallel()
	stepByHand(t)
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	const from = int64(1_699_992_000)
	const span = 14 * 3600 // two whole buckets of 6 hours at least
	rng := rand.New(rand.NewPCG(14, 6))
	if err := s.Ingest(ctx, randomRecords(rng, 4000, from, span)); err != nil {
		t.Fatal(err)
	}
	exec(t, s, "DROP TABLE "+tenMinutes.Table)
	exec(t, s, "DROP TABLE "+sixHours.Table)
	exec(t, s, "UPDATE "+schemaTable+" SET version = 13")
	s.Close()
	if s, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	percentiles := func(when string, end int64) {
		t.Helper()
		for i := range 40 {
			q := randomRollupQuery(rng)
			q.Hists = []records.Column{records.ColSRTHist, records.ColDTTHist}[:1+rng.IntN(2)]
			if q = (&records.Query{Groups: q.Groups, Sums: []records.Sum{records.SumSRT, records.SumSRTSamples}, Hists: q.Hists, Where: q.Where}); len(records.Chain(s.rollups, q)) == 0 {
				continue
			}
			lo := from - 100 + rng.Int64N(end-from)
			hi := lo + rng.Int64N(end+100-lo)
			if i%5 == 0 {
				lo, hi = from-1000+rng.Int64N(2000), end-1000+rng.Int64N(2000)
			}
			if raw, rolled := sumsBy(t, s, lo, hi, true, q), sumsBy(t, s, lo, hi, false, q); !reflect.DeepEqual(raw, rolled) {
				t.Fatalf("%s: %+v over [%d, %d): with the rollups %v, from the records %v", when, q, lo, hi, rolled, raw)
			}
		}
	}
	percentiles("migrated", from+span)
	if n := count(t, s, "SELECT count(*) FROM "+sixHours.Table); n == 0 {
		t.Errorf("%s holds no row after migrating", sixHours.Table)
	}
	if err := s.Ingest(ctx, randomRecords(rng, 1000, from, span+3600)); err != nil {
		t.Fatal(err)
	}
	percentiles("more records", from+span+3600)
	checkRollups(t, s, rng, "more records", from, from+span+3600, 10)
}
