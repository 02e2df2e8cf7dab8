package duckdb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// stepByHand keeps the background step from running by itself in the stores t opens, so that
// t moves the marks.
func stepByHand(t *testing.T) {
	every := rollupEvery.Load()
	rollupEvery.Store(int64(24 * time.Hour))
	t.Cleanup(func() { rollupEvery.Store(every) })
}

// checkRollups compares n sets of random queries that rollups answer over random periods in
// [from, end) (cutting minutes and hours, and some over all of it) with and without the rollups.
func checkRollups(t *testing.T, s *Store, rng *rand.Rand, when string, from, end int64, n int) {
	t.Helper()
	for i := range n {
		var qs []*records.Query
		for range 1 + rng.IntN(4) {
			qs = append(qs, randomRollupQuery(rng))
		}
		lo := from - 100 + rng.Int64N(end-from)
		hi := lo + rng.Int64N(end+100-lo)
		if i%8 == 0 {
			lo, hi = from-5000, end+1000 // whole hours before from too
		}
		raw, rolled := sumsBy(t, s, lo, hi, true, qs...), sumsBy(t, s, lo, hi, false, qs...)
		if !reflect.DeepEqual(raw, rolled) {
			t.Fatalf("%s, %d queries over [%d, %d): with the rollups %v, from the records %v", when, len(qs), lo, hi, rolled, raw)
		}
	}
}

// setMarks moves the marks of s's background rollups to m, for the records they hold.
func setMarks(t *testing.T, s *Store, m int64) {
	t.Helper()
	for table, a := range s.marks {
		if _, err := s.db.ExecContext(context.Background(), "UPDATE rollup_marks SET through = ? WHERE rollup = ?", m, table); err != nil {
			t.Fatal(err)
		}
		a.Store(m)
	}
}

// hostsMark returns the mark of the background rollup with addresses.
func hostsMark(s *Store) int64 { return s.marks.of(&duckRollups[2]) }

// TestRollupsAnswerAsRecords checks random queries that rollups answer, several at once, over
// random periods (cutting minutes and hours) against the records alone: with the background
// rollup's mark behind, mid-way and caught up, with records arriving late into old buckets
// (below the mark and above), after compactions, after retentions that cut a bucket below the
// mark and one above it, and after the store is reopened.
func TestRollupsAnswerAsRecords(t *testing.T) {
	t.Parallel()
	stepByHand(t)
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	rng := rand.New(rand.NewPCG(5, 8))
	const start, span = int64(1_700_000_000 - 1_700_000_000%3600 - 3*3600), int64(8 * 3600)
	check := func(when string, from int64) { t.Helper(); checkRollups(t, s, rng, when, from, start+span, 40) }
	ingest := func(n int, from, span int64) {
		t.Helper()
		if err := s.Ingest(ctx, randomRecords(rng, n, from, span)); err != nil {
			t.Fatal(err)
		}
	}
	catchUp := func(now, want int64) {
		t.Helper()
		if err := s.catchUp(ctx, now); err != nil || hostsMark(s) != want {
			t.Fatalf("catching up at %d: mark %d, want %d (%v)", now, hostsMark(s), want, err)
		}
	}
	// The newest hours first, then older ones: late records in buckets that have rows.
	for _, part := range []struct{ from, span int64 }{{start + 4*3600, 4 * 3600}, {start, 5 * 3600}, {start + 3*3600 + 17, 7}} {
		for range 3 {
			ingest(700, part.from, part.span)
		}
	}
	check("behind (nothing rolled)", start)
	catchUp(start+4*3600+rollupSlack, start+4*3600)
	check("mid-way", start)
	ingest(500, start, span) // below the mark and above
	check("late records", start)
	for i := range s.rollups {
		if _, err := compact(ctx, &s.rollups[i], s.db, start, start+span); err != nil {
			t.Fatal(err)
		}
	}
	ingest(500, start, span)
	check("compacted", start)
	cut := start + 3600 + 1234 // cuts a minute and an hour below the mark
	if _, err := s.DeleteBefore(ctx, cut); err != nil {
		t.Fatal(err)
	}
	check("retention below the mark", cut)
	cut = start + 4*3600 + 1234 // cuts the hour at the mark
	if _, err := s.DeleteBefore(ctx, cut); err != nil {
		t.Fatal(err)
	}
	check("retention above the mark", cut)
	// The newest hour waits for records rollupSlack past its end.
	catchUp(start+span+rollupSlack, start+span-3600)
	check("caught up", cut)
	s.Close()
	if s, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if hostsMark(s) != start+span-3600 {
		t.Errorf("reopened: mark %d, want %d", hostsMark(s), start+span-3600)
	}
	ingest(300, cut, span)
	check("reopened", cut)
}

// TestRollupStepWithIngest runs the background step while batches arrive, some for buckets
// it is rolling or has rolled, then checks the rollups against the records.
func TestRollupStepWithIngest(t *testing.T) {
	t.Parallel()
	stepByHand(t)
	ctx := context.Background()
	s := openTemp(t)
	rng := rand.New(rand.NewPCG(9, 1))
	const start, span = int64(1_699_000_000 - 1_699_000_000%3600), int64(6 * 3600)
	recs := make([][]records.Record, 30)
	for i := range recs {
		recs[i] = randomRecords(rng, 200, start+int64(i)*span/30, span/10)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, b := range recs {
			if err := s.Ingest(ctx, b); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for now := start; now < start+span+rollupSlack; now += 600 {
		if err := s.catchUp(ctx, now); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	checkRollups(t, s, rng, "after ingest beside the step", start, start+span, 30)
	if err := s.CatchUp(ctx); err != nil || hostsMark(s) < start+span {
		t.Fatalf("caught up to %d, want %d or later (%v)", hostsMark(s), start+span, err)
	}
	checkRollups(t, s, rng, "caught up", start, start+span, 30)
}

// TestRollupMadeForAnEarlierFile checks the databases of earlier versions when opened: one
// without rollups gains them (the background one empty, its mark at 0, then filled by the
// step), one whose rollup with addresses was kept in every transaction (no mark) gets the end
// of its newest bucket as its mark, and one that kept a rollup in the background which this
// version keeps in every transaction has it completed; the answers stay those of the records.
func TestRollupMadeForAnEarlierFile(t *testing.T) {
	t.Parallel()
	stepByHand(t)
	ctx := context.Background()
	const from = int64(1_699_992_000)
	hosts := &duckRollups[2]
	for _, earlier := range []struct {
		name string
		make func(*Store) error
		mark int64 // of the hosts rollup when reopened
	}{
		{"no rollups", func(s *Store) error {
			for _, stmt := range []string{"DROP TABLE records_minute", "DROP TABLE records_hour", "DROP TABLE records_hour_hosts", "DROP TABLE records_10min_hosts", "DELETE FROM rollup_marks"} {
				if _, err := s.db.ExecContext(ctx, stmt); err != nil {
					return err
				}
			}
			return nil
		}, 0},
		{"a rollup dropped by hand", func(s *Store) error {
			if err := s.CatchUp(ctx); err != nil || hostsMark(s) == 0 {
				return fmt.Errorf("catching up: mark %d, %v", hostsMark(s), err)
			}
			_, err := s.db.ExecContext(ctx, "DROP TABLE "+hosts.Table)
			return err
		}, 0},
		{"rollup in the transaction", func(s *Store) error {
			_, err := s.db.ExecContext(ctx, insertSums(hosts, recordsOf(hosts), "true")+"; DELETE FROM rollup_marks")
			return err
		}, records.FloorTo(from+3*3600-1, 3600) + 3600},
		{"per-minute rollup in the background", func(s *Store) error {
			_, err := s.db.ExecContext(ctx, "DELETE FROM records_minute WHERE time >= ?", from+3600)
			if err == nil {
				_, err = s.db.ExecContext(ctx, "INSERT INTO rollup_marks VALUES ('records_minute', ?)", from+3600)
			}
			return err
		}, 0},
	} {
		t.Run(earlier.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			err = s.Ingest(ctx, randomRecords(rng, 3000, from, 3*3600))
			if err == nil {
				err = earlier.make(s)
			}
			if err == nil { // no earlier version kept the rollup per 10 minutes, nor a schema version
				_, err = s.db.ExecContext(ctx, "DROP TABLE IF EXISTS records_10min_hosts; DROP TABLE IF EXISTS records_10min; DROP TABLE IF EXISTS records_6hour; DELETE FROM rollup_marks WHERE rollup = 'records_10min_hosts'; DROP TABLE "+schemaTable)
			}
			s.Close()
			if err != nil {
				t.Fatal(err)
			}
			if s, err = Open(ctx, dir); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if m := hostsMark(s); m != earlier.mark {
				t.Errorf("mark %d, want %d", m, earlier.mark)
			}
			if m := s.marks.of(&duckRollups[4]); m != 0 {
				t.Errorf("mark of the new rollup per 10 minutes %d, want 0", m)
			}
			var tables string
			if err := s.db.QueryRowContext(ctx, "SELECT string_agg(rollup, ' ' ORDER BY rollup) FROM rollup_marks").Scan(&tables); err != nil || tables != "records_10min_hosts records_hour_hosts" {
				t.Errorf("stored marks of %q (%v); want those of the two background rollups", tables, err)
			}
			checkRollups(t, s, rng, "reopened", from, from+3*3600, 20)
			if err := s.Ingest(ctx, randomRecords(rng, 500, from, 4*3600)); err != nil {
				t.Fatal(err)
			}
			if err := s.CatchUp(ctx); err != nil {
				t.Fatal(err)
			}
			checkRollups(t, s, rng, "caught up", from, from+4*3600, 20)
		})
	}
}

// TestRollupStepSpan checks that a step rolls, from the first bucket that holds records, the
// due buckets of an hour (rollupStepSpan) at once, for every background rollup in one
// transaction, and stops at the due time: the rollup per 10 minutes catches up six buckets a
// step, the hourly one one.
func TestRollupStepSpan(t *testing.T) {
	t.Parallel()
	stepByHand(t)
	ctx := context.Background()
	s := openTemp(t)
	rng := rand.New(rand.NewPCG(4, 4))
	const start = int64(1_699_000_000 - 1_699_000_000%3600)
	if err := s.Ingest(ctx, randomRecords(rng, 2000, start+700, 3*3600)); err != nil {
		t.Fatal(err)
	}
	tenMin, hour := &duckRollups[4], &duckRollups[2]
	now := start + 3*3600 + 700 + rollupSlack // both due through start + 3h
	for i, want := range []struct {
		rolled               bool
		tenMinMark, hourMark int64
	}{
		{true, start + 600 + 3600, start + 3600},
		{true, start + 600 + 2*3600, start + 2*3600},
		{true, start + 3*3600, start + 3*3600},
		{false, start + 3*3600, start + 3*3600},
	} {
		if err := s.lock(ctx); err != nil {
			t.Fatal(err)
		}
		rolled, err := s.rollStep(ctx, now)
		s.unlock()
		if err != nil || rolled != want.rolled || s.marks.of(tenMin) != want.tenMinMark || s.marks.of(hour) != want.hourMark {
			t.Fatalf("step %d: rolled %v, marks %d and %d; want %+v (%v)", i, rolled, s.marks.of(tenMin), s.marks.of(hour), want, err)
		}
		checkRollups(t, s, rng, fmt.Sprint("step ", i), start, start+4*3600, 4)
	}
}
