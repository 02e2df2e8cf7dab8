package demo_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records/clickhouse"
	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"

	"github.com/fnapi/fnapi/examples/dataservice/demo"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// fakeClock returns testNow, then a second later at every call.
func fakeClock() func() time.Time {
	var calls atomic.Int64
	return func() time.Time { return testNow.Add(time.Duration(calls.Add(1)-1) * time.Second) }
}

func TestRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var batches [][]records.Record
	live := 0
	write := func(_ context.Context, recs []records.Record) error {
		mu.Lock()
		defer mu.Unlock()
		batches = append(batches, recs)
		if recs[0].Time >= testNow.Unix() {
			live++
			if live == 3 {
				cancel()
			}
		}
		return nil
	}
	opts := demo.Options{Seed: 5, Backfill: 3 * time.Hour, Interval: time.Millisecond, Now: fakeClock(), Incident: testNow}
	if err := demo.Run(ctx, write, opts); err != nil {
		t.Fatalf("Run = %v, want nil after cancel", err)
	}
	mu.Lock()
	defer mu.Unlock()
	var backfill []records.Record
	for _, b := range batches {
		if len(b) == 0 || len(b) > demo.BatchSize {
			t.Errorf("batch of %d records, want 1..%d", len(b), demo.BatchSize)
		}
		if b[0].Time < testNow.Unix() {
			backfill = append(backfill, b...)
		}
	}
	g := demo.New(testNow.Add(-3*time.Hour), opts)
	if want := g.Until(testNow); !reflect.DeepEqual(backfill, want) {
		t.Errorf("backfill wrote %d records, want the generator's %d", len(backfill), len(want))
	}
	if live != 3 {
		t.Errorf("%d live batches, want 3", live)
	}
}

func TestRunWriteError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk full")
	write := func(context.Context, []records.Record) error { return boom }
	err := demo.Run(context.Background(), write, demo.Options{Now: fakeClock()})
	if !errors.Is(err, boom) {
		t.Fatalf("Run = %v, want the writer's error", err)
	}
}

// TestRunIntoStore backfills a day into the DuckDB store: every generated record is accepted.
func TestRunIntoStore(t *testing.T) {
	t.Parallel()
	s, err := duckdb.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runIntoStore(t, s)
}

// runIntoStore backfills a day into s and checks that every generated record is there, each
// in its layer.
func runIntoStore(t *testing.T, s records.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now := testNow
	var written atomic.Int64
	var byLayer [records.NumLayers]atomic.Int64
	write := func(ctx context.Context, recs []records.Record) error {
		if err := s.Ingest(ctx, recs); err != nil {
			return err
		}
		for _, r := range recs {
			byLayer[r.Layer].Add(1)
		}
		if written.Add(int64(len(recs))); recs[0].Time >= now.Unix() {
			cancel()
		}
		return nil
	}
	clock := func() time.Time { return now.Add(time.Duration(written.Load()%7) * time.Second) }
	if err := demo.Run(ctx, write, demo.Options{Interval: time.Millisecond, Now: clock}); err != nil {
		t.Fatal(err)
	}
	for l := range records.NumLayers {
		var n, apps int64
		q := &records.Query{Layer: l, Groups: []records.Group{{Column: records.ColApplication}}, Sums: []records.Sum{records.SumRecords}}
		err := s.Read(context.Background(), s.Compile(q), 0, now.Unix()+86400, func(r *records.Row) error {
			n += int64(r.Sums[0])
			apps++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := byLayer[l].Load(); n != want || n < 10_000 || l == records.LayerTransport && (n < 200_000 || apps < 10) {
			t.Errorf("layer %d: store holds %d records of %d applications, %d written", l, n, apps, want)
		}
	}
}

func TestRunStopsDuringBackfill(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	writes := 0
	w := func(context.Context, []records.Record) error {
		writes++
		cancel() // the operator presses Ctrl-C after the first batch
		return nil
	}
	done := make(chan error, 1)
	go func() {
		done <- demo.Run(ctx, w, demo.Options{Seed: 1, Rate: 200, Backfill: 10 * 365 * 24 * time.Hour})
	}()
	select {
	case err := <-done:
		if err != nil || writes != 1 {
			t.Fatalf("Run = %v after %d writes; want nil after 1", err, writes)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run went on with the backfill after its context was cancelled")
	}
}

// TestRunIntoClickHouse backfills a day into a ClickHouse server: the generator works there
// as on DuckDB.
func TestRunIntoClickHouse(t *testing.T) {
	t.Parallel()
	s, err := clickhouse.Open(context.Background(), testenv.ClickHouse(t).URL, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runIntoStore(t, s)
}
