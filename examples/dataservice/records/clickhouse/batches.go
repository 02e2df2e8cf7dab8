package clickhouse

import (
	"context"
	"fmt"
	"hash/fnv"
	"reflect"
	"slices"
	"strings"
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
// batchesTable: IngestBatches of b alone.
func (s *Store) IngestBatch(ctx context.Context, b records.Batch) error {
	return s.IngestBatches(ctx, []records.Batch{b})
}

// IngestBatches stores the records of bs in one INSERT of one block, then their ids in one
// INSERT into batchesTable: ClickHouse's cost of an insert is mostly by block (a part of the
// records table and one of each rollup's, the views run once), so the queue's consumer gathers
// the batches it fetched (queue.Gatherer). A batch refused for its content (its
// *records.BatchError) or of an invalid id fails the call before anything is stored; one
// without records is skipped. ClickHouse 18.16 has no transaction over two tables, nor insert
// deduplication outside replicated tables: the rows of a block whose answer never came (the
// server killed after writing its part, while it fed the rollups) or whose ids were not
// written (this process killed in between) are stored without their ids. So a batch given
// Again whose id is missing is compared with the rows stored in its time span, and only the
// records the store lacks are stored (a shard's part written, another's not, in a cluster): a
// record is taken for stored when a row equal in every column is, so that of two equal
// records (same time slice, conversation, exporter and counts) in two batches, the second,
// given Again after such a failure, would be lost. Batches given Again are serialised in this
// process; two processes storing one batch at once (the consumer keeps a batch from being
// delivered again while it stores it) could both store it. The rollups follow the records
// (repair.go).
func (s *Store) IngestBatches(ctx context.Context, bs []records.Batch) error {
	now := time.Now()
	for _, b := range bs {
		if b.ID == "" || len(b.ID) > records.MaxBatchIDLen {
			return fmt.Errorf("records: batch id of %d bytes, want 1 to %d", len(b.ID), records.MaxBatchIDLen)
		}
		if err := records.ValidateBatch(b.Records, now); err != nil {
			return err
		}
	}
	bs = slices.DeleteFunc(slices.Clone(bs), func(b records.Batch) bool { return len(b.Records) == 0 })
	if len(bs) == 0 {
		return nil
	}
	if err := s.ensureBatches(ctx); err != nil {
		return err
	}
	newest := make([]int64, len(bs))
	for i, b := range bs {
		newest[i] = records.BatchSpan(b.Records).To - 1
	}
	defer s.lockAgain(bs)()
	stored := make([]bool, len(bs))
	for i := range bs {
		if !bs[i].Again {
			continue
		}
		var n uint64
		if err := s.conn.QueryRow(ctx, "SELECT count() FROM "+batchesTable+" WHERE id = ?", bs[i].ID).Scan(&n); err != nil {
			return fmt.Errorf("records: batch %s: %w", bs[i].ID, unavailable(err))
		}
		if stored[i] = n > 0; stored[i] {
			bs[i].Records = nil
			continue
		}
		// The rows may be stored without the id (see above): store those that are not.
		recs, err := s.missing(ctx, bs[i].Records)
		if err != nil {
			return fmt.Errorf("records: batch %s: %w", bs[i].ID, unavailable(err))
		}
		bs[i].Records = recs
	}
	parts := make([][]records.Record, 0, len(bs))
	for _, b := range bs {
		if len(b.Records) > 0 {
			parts = append(parts, b.Records)
		}
	}
	if len(parts) > 0 {
		if err := s.ingest(ctx, parts...); err != nil {
			return err
		}
	}
	if !slices.Contains(stored, false) {
		return nil
	}
	w, err := s.conn.PrepareBatch(ctx, "INSERT INTO "+batchesTable+" (id, time)")
	if err == nil {
		for i := range bs {
			if err == nil && !stored[i] {
				err = w.Append(bs[i].ID, newest[i])
			}
		}
		if err == nil {
			err = w.Send()
		}
		w.Close()
	}
	if err != nil {
		return fmt.Errorf("records: %d batches stored, their ids not: %w", len(bs), unavailable(err))
	}
	return nil
}

// lockAgain locks the mutexes of the batches of bs given Again, in order (two calls never
// wait for each other's), and returns what unlocks them.
func (s *Store) lockAgain(bs []records.Batch) (unlock func()) {
	var held []int
	for _, b := range bs {
		if b.Again {
			h := fnv.New32a()
			h.Write([]byte(b.ID))
			held = append(held, int(h.Sum32()%uint32(len(s.batches.again))))
		}
	}
	slices.Sort(held)
	held = slices.Compact(held)
	for _, i := range held {
		s.batches.again[i].Lock()
	}
	return func() {
		for _, i := range held {
			s.batches.again[i].Unlock()
		}
	}
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

// candidates is how many records one query of missing looks for.
const candidates = 1000

// missing returns the records of recs of which the store holds no equal row (each row counts
// for one record), reading the rows of recs' time span whose ports and bytes match one of them.
func (s *Store) missing(ctx context.Context, recs []records.Record) ([]records.Record, error) {
	names, _ := records.SQLColumns()
	span := records.BatchSpan(recs)
	held := map[string]int{}
	for start := 0; start < len(recs); start += candidates {
		part := recs[start:min(start+candidates, len(recs))]
		var in strings.Builder
		for i := range part {
			r := &part[i]
			if i > 0 {
				in.WriteString(", ")
			}
			fmt.Fprintf(&in, "(%d, %d, %d, %d)", r.Client.Port, r.Server.Port, r.Client.Bytes, r.Server.Bytes)
		}
		rows, err := s.conn.Query(ctx, "SELECT "+joinNames(names)+" FROM "+s.table+" WHERE time >= ? AND time < ? AND (client_port, server_port, client_bytes, server_bytes) IN ("+in.String()+")", span.From, span.To)
		if err != nil {
			return nil, err
		}
		types := rows.ColumnTypes()
		vals := make([]any, len(types))
		for i, t := range types {
			vals[i] = reflect.New(t.ScanType()).Interface()
		}
		for rows.Next() {
			if err := rows.Scan(vals...); err != nil {
				rows.Close()
				return nil, err
			}
			held[rowKey(vals, true)]++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	var out []records.Record
	var rb records.RowBuilder
	row := make([]any, 0, len(names))
	for i := range recs {
		row = row[:0]
		for _, v := range rb.AppendRow(nil, &recs[i]) {
			row = append(row, v)
		}
		if k := rowKey(row, false); held[k] > 0 {
			held[k]--
			continue
		}
		out = append(out, recs[i])
	}
	return out, nil
}

// rowKey is the text of a row's values, pointers to them when scanned.
func rowKey(vals []any, scanned bool) string {
	var b strings.Builder
	for _, v := range vals {
		if scanned {
			v = reflect.ValueOf(v).Elem().Interface()
		}
		fmt.Fprint(&b, v, "\x00")
	}
	return b.String()
}
