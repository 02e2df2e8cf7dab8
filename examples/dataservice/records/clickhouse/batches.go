package clickhouse

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// batchesTable holds the id of every batch IngestBatch stored (on the server of the Store's
// URL), with the time of its newest record: partitioned by day like the records, so that
// DeleteBefore drops the ids with their records.
const batchesTable = "records_batches"

// batchesDDL creates batchesTable when missing.
const batchesDDL = "CREATE TABLE IF NOT EXISTS " + batchesTable +
	" (id String, time Int64) ENGINE = MergeTree PARTITION BY intDiv(time, 86400) ORDER BY id"

var _ records.BatchStore = (*Store)(nil)

// batches creates batchesTable once, on the first IngestBatch (a store that never ingests
// batches never has it); a failed attempt is tried again on the next call.
type batches struct {
	mu    sync.Mutex
	ready bool
	// again serialises, by a hash of their id, the batches given Again in this process, from
	// the check of their id to its write: two deliveries of one batch at once store it once.
	again [64]sync.Mutex
}

// IngestBatch stores b.Records as Ingest does (one INSERT of one block), then b.ID in
// batchesTable; a batch given Again whose id is there is not stored again. ClickHouse 18.16 has
// no transaction over two tables, nor insert deduplication outside replicated tables, so one
// window stays open: rows written by a block whose answer never came (the server killed
// between writing its part and answering) or whose id was not written after it (this process
// killed in between) are stored twice when the batch comes again; so are the rows of a batch
// given Again by two processes at once (package queue's consumer keeps a batch it works on
// from being redelivered meanwhile). The rollups follow the records (repair.go).
func (s *Store) IngestBatch(ctx context.Context, b records.Batch) error {
	if b.ID == "" || len(b.ID) > records.MaxBatchIDLen {
		return fmt.Errorf("records: batch id of %d bytes, want 1 to %d", len(b.ID), records.MaxBatchIDLen)
	}
	if len(b.Records) == 0 {
		return nil
	}
	if err := records.ValidateBatch(b.Records, time.Now()); err != nil {
		return err
	}
	if err := s.ensureBatches(ctx); err != nil {
		return err
	}
	if b.Again {
		h := fnv.New32a()
		h.Write([]byte(b.ID))
		mu := &s.batches.again[h.Sum32()%uint32(len(s.batches.again))]
		mu.Lock()
		defer mu.Unlock()
		var n uint64
		if err := s.conn.QueryRow(ctx, "SELECT count() FROM "+batchesTable+" WHERE id = ?", b.ID).Scan(&n); err != nil {
			return fmt.Errorf("records: batch %s: %w", b.ID, unavailable(err))
		}
		if n > 0 {
			return nil
		}
	}
	if err := s.Ingest(ctx, b.Records); err != nil {
		return err
	}
	w, err := s.conn.PrepareBatch(ctx, "INSERT INTO "+batchesTable+" (id, time)")
	if err == nil {
		if err = w.Append(b.ID, records.BatchSpan(b.Records).To-1); err == nil {
			err = w.Send()
		}
		w.Close()
	}
	if err != nil {
		return fmt.Errorf("records: batch %s stored, its id not: %w", b.ID, unavailable(err))
	}
	return nil
}

// ensureBatches creates batchesTable unless done before.
func (s *Store) ensureBatches(ctx context.Context) error {
	s.batches.mu.Lock()
	defer s.batches.mu.Unlock()
	if s.batches.ready {
		return nil
	}
	if err := s.conn.Exec(ctx, batchesDDL); err != nil {
		return fmt.Errorf("records: clickhouse: create %s: %w", batchesTable, unavailable(err))
	}
	s.batches.ready = true
	return nil
}
