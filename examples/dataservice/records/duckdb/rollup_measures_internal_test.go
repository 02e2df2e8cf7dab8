package duckdb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestOpenAddsRollupMeasures opens a file of schema version 8, whose rollups keep bytes,
// packets and records only, holding capture records, some rolled up in the background and
// some not yet: steps 9 and 10 give every rollup the measures and histograms of the records
// it holds, so that queries of the measures read the rollups (checkRollups fails when a query
// finds no rollup) and answer as the records do, before and after more records come.
func TestOpenAddsRollupMeasures(t *testing.T) {
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
// MaxHistCount, summed in Go (ingest) as in SQL (mergeHist), where records of MaxCount samples
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
	var got []any
	entry := uint64(records.MaxCount)<<records.HistShift | 5
	err := s.db.QueryRowContext(context.Background(), "SELECT "+mergeHist("h")+" FROM (SELECT [CAST(? AS UBIGINT)] AS h FROM range(3000))",
		fmt.Sprint(entry)).Scan(&got)
	if want := uint64(records.MaxHistCount)<<records.HistShift | 5; err != nil || len(got) != 1 || got[0] != want {
		t.Errorf("summed in SQL: %v (%v), want [%d]", got, err, want)
	}
}
