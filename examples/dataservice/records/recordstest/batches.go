package recordstest

import (
	"context"
	"sync"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// CheckBatches checks a records.BatchStore at time at (a span no other check uses): a batch
// given again (Again), concurrently or after, is stored once, as is a new one given Again twice
// at once; a batch it refuses leaves no id behind, so the same id is stored once corrected.
func CheckBatches(t *testing.T, s records.BatchStore, at int64) {
	t.Helper()
	ctx := context.Background()
	before := countAt(t, s, at)
	a := records.Batch{ID: "batch-a", Records: Batch(100, at)}
	if err := s.IngestBatch(ctx, a); err != nil {
		t.Fatal(err)
	}
	a.Again = true
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 4 {
		wg.Go(func() { errs <- s.IngestBatch(ctx, a) })
	}
	c := records.Batch{ID: "batch-c", Again: true, Records: Batch(5, at)}
	for i := range c.Records {
		c.Records[i].Client.Bytes = 7 // unlike batch-a's
	}
	for range 2 {
		wg.Go(func() { errs <- s.IngestBatch(ctx, c) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("IngestBatch: %v", err)
		}
	}
	bad := records.Batch{ID: "batch-b", Records: Batch(10, at)}
	bad.Records[3].Application = ""
	if err := s.IngestBatch(ctx, bad); err == nil {
		t.Fatal("IngestBatch took a record without application")
	}
	if err := s.IngestBatch(ctx, records.Batch{ID: "batch-b", Records: Batch(10, at)}); err != nil {
		t.Fatal(err)
	}
	if n := countAt(t, s, at) - before; n != 115 {
		t.Fatalf("%d records stored, want 115: batch-a (100), batch-b (10) and batch-c (5) once each", n)
	}
}

// CheckBatchesWithoutID checks a records.BatchStore that may store a batch's rows without its
// id (ClickHouse) at time at: a batch whose rows, some then all, were stored without its id,
// as by a store killed before it answered, is completed when given Again, never doubled.
func CheckBatchesWithoutID(t *testing.T, s records.BatchStore, at int64) {
	t.Helper()
	ctx := context.Background()
	before := countAt(t, s, at)
	d := records.Batch{ID: "batch-d", Again: true, Records: Batch(20, at)}
	for i := range d.Records {
		d.Records[i].Client.Bytes = uint64(1000 + i)
	}
	if err := s.Ingest(ctx, d.Records[:8]); err != nil {
		t.Fatal(err)
	}
	if err := s.IngestBatch(ctx, d); err != nil {
		t.Fatal(err)
	}
	e := records.Batch{ID: "batch-e", Again: true, Records: Batch(20, at)}
	for i := range e.Records {
		e.Records[i].Server.Bytes = uint64(2000 + i)
	}
	if err := s.Ingest(ctx, e.Records); err != nil {
		t.Fatal(err)
	}
	if err := s.IngestBatch(ctx, e); err != nil {
		t.Fatal(err)
	}
	if n := countAt(t, s, at) - before; n != 40 {
		t.Fatalf("%d records stored, want 40: batch-d and batch-e (20 each) once", n)
	}
}

// countAt returns the number of records of r at time at.
func countAt(t testing.TB, r records.Reader, at int64) int64 {
	t.Helper()
	var n int64
	q := &records.Query{Sums: []records.Sum{records.SumRecords}}
	err := r.Read(context.Background(), r.Compile(q), at, at+1, func(row *records.Row) error {
		n += int64(row.Sums[0])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
