package duckdb

import (
	"context"
	"errors"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// TestIngestBatchesOneCommit: the batches of one IngestBatches go in one commit, each stored
// once: one stored before is skipped, one repeated in the call stored once; a batch refused for
// its content fails the call with its *records.BatchError and stores nothing.
func TestIngestBatchesOneCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTemp(t)
	a := records.Batch{ID: "a", Records: recordstest.Batch(300, 1_700_000_000)}
	b := records.Batch{ID: "b", Records: recordstest.Batch(200, 1_700_000_060)}
	c := records.Batch{ID: "c", Records: recordstest.Batch(100, 1_700_000_120)}
	if err := s.IngestBatch(ctx, a); err != nil {
		t.Fatal(err)
	}
	commits := 0
	count := func(ctx context.Context, ms []*member) error {
		commits++ // under the write token
		return s.commit(ctx, ms)
	}
	a.Again = true
	if err := s.ingestBatches(ctx, []records.Batch{b, a, c, b}, count); err != nil {
		t.Fatal(err)
	}
	if commits != 1 {
		t.Errorf("%d commits, want 1", commits)
	}
	bad := records.Batch{ID: "d", Records: recordstest.Batch(50, 1_700_000_180)}
	bad.Records[7].Application = ""
	var be *records.BatchError
	if err := s.IngestBatches(ctx, []records.Batch{{ID: "e", Records: recordstest.Batch(10, 1_700_000_240)}, bad}); !errors.As(err, &be) || be.Index != 7 {
		t.Errorf("IngestBatches of a bad batch = %v, want its *BatchError at 7", err)
	}
	for _, q := range []struct{ what, query string }{
		{"records", "SELECT count(*) FROM records"},
		{"records in the rollup", "SELECT sum(records) FROM " + s.rollups[0].Table},
		{"batch ids", "SELECT count(*) FROM " + batchesTable},
	} {
		want := int64(600)
		if q.what == "batch ids" {
			want = 3
		}
		var n int64
		if err := s.db.QueryRowContext(ctx, q.query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("%s: %d, want %d", q.what, n, want)
		}
	}
}
