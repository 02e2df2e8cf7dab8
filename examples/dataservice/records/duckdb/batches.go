package duckdb

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// batchesTable holds the id of every batch IngestBatch stored, with the time of its newest
// record (DeleteBefore deletes the ids with their records), written in the transaction of the
// batch's rows: a batch id is in it exactly when its records are.
const batchesTable = "records_batches"

// batchID is a stored batch's row of batchesTable.
type batchID struct {
	id   string
	time int64
}

var _ records.BatchStore = (*Store)(nil)

// IngestBatch stores b.Records as Ingest does, with b.ID in the same transaction, unless a
// batch of that id is stored already: then it returns nil and stores nothing. Every call
// checks, Again or not: the check is one query for a whole group commit. It is IngestBatches
// of b alone.
func (s *Store) IngestBatch(ctx context.Context, b records.Batch) error {
	return s.IngestBatches(ctx, []records.Batch{b})
}

// IngestBatches stores the batches of bs as IngestBatch does each, in one group commit
// (several members of one group, joined together) when they fit in maxGroup records with the
// batches already waiting, else in as many as they take: DuckDB's cost of a commit is about
// 10 ms whatever its size (the records and five rollups), so the queue's consumer gathers the
// batches it fetched (queue.Gatherer). A batch whose id is stored, or repeated in bs, is
// skipped; one without records too. A batch refused for its content (its *records.BatchError)
// or of an invalid id fails the call before anything is stored; a failed commit fails it,
// with the batches of other commits of the call possibly stored.
func (s *Store) IngestBatches(ctx context.Context, bs []records.Batch) error {
	return s.ingestBatches(ctx, bs, s.commit)
}

// ingestBatches is IngestBatches, committing each group through commit.
func (s *Store) ingestBatches(ctx context.Context, bs []records.Batch, commit func(context.Context, []*member) error) error {
	now := time.Now()
	var span records.Span
	var recs [][]records.Record
	var ids []string
	for _, b := range bs {
		if b.ID == "" || len(b.ID) > records.MaxBatchIDLen {
			return fmt.Errorf("records: batch id of %d bytes, want 1 to %d", len(b.ID), records.MaxBatchIDLen)
		}
		if len(b.Records) == 0 {
			continue
		}
		if err := records.ValidateBatch(b.Records, now); err != nil {
			return err
		}
		bsp := records.BatchSpan(b.Records)
		if len(recs) == 0 {
			span = bsp
		}
		span.From, span.To = min(span.From, bsp.From), max(span.To, bsp.To)
		recs = append(recs, b.Records)
		ids = append(ids, b.ID)
	}
	if len(recs) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("records: ingest: %w", err)
	}
	s.changes.Touch(span.From, span.To)
	defer s.changes.Touch(span.From, span.To)
	var first error
	for i, m := range s.group.joinAll(recs, ids) {
		// Once the first member's group is committed, the others it took answer at once.
		if err := s.ingestGrouped(ctx, m, commit); err != nil && first == nil {
			first = fmt.Errorf("records: ingest batch %s: %w", ids[i], err)
		}
	}
	return first
}

// unstored returns the members of ms to store, without those of a batch id stored before or
// twice in ms, and the ids of the batches it keeps; the caller holds the write token, so
// nothing else writes batchesTable until its commit.
func (s *Store) unstored(ctx context.Context, ms []*member) ([]*member, []batchID, error) {
	var want []any
	for _, m := range ms {
		if m.id != "" {
			want = append(want, m.id)
		}
	}
	if len(want) == 0 {
		return ms, nil, nil
	}
	seen := make(map[string]bool, len(want))
	rows, err := s.db.QueryContext(ctx, "SELECT id FROM "+batchesTable+" WHERE id IN (?"+strings.Repeat(", ?", len(want)-1)+")", want...)
	if err != nil {
		return nil, nil, fmt.Errorf("batch ids: %w", err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("batch ids: %w", err)
		}
		seen[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("batch ids: %w", err)
	}
	kept := make([]*member, 0, len(ms))
	var ids []batchID
	for _, m := range ms {
		if m.id != "" {
			if seen[m.id] {
				continue
			}
			seen[m.id] = true
			ids = append(ids, batchID{m.id, records.BatchSpan(m.recs).To - 1})
		}
		kept = append(kept, m)
	}
	return kept, ids, nil
}

// insertBatchIDs inserts ids into batchesTable through exec.
func insertBatchIDs(ids []batchID, exec func(stmt string, args []any) error) error {
	for len(ids) > 0 {
		n := min(len(ids), 500)
		args := make([]any, 0, 2*n)
		for _, b := range ids[:n] {
			args = append(args, b.id, b.time)
		}
		stmt := "INSERT INTO " + batchesTable + " VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?), ", n), ", ")
		if err := exec(stmt, args); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}
