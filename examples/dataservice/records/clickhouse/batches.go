package clickhouse

import (
	"context"
	"fmt"
	"hash/fnv"
	"reflect"
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
// batchesTable. ClickHouse 18.16 has no transaction over two tables, nor insert deduplication
// outside replicated tables: the rows of a block whose answer never came (the server killed
// after writing its part, while it fed the rollups) or whose id was not written (this process
// killed in between) are stored without their id. So a batch given Again whose id is missing
// is compared with the rows stored in its time span, and only the records the store lacks are
// stored (a shard's part written, another's not, in a cluster): a record is taken for stored
// when a row equal in every column is, so that of two equal records (same time slice,
// conversation, exporter and counts) in two batches, the second, given Again after such a
// failure, would be lost. Batches given Again are serialised in this process; two processes
// storing one batch at once (the consumer keeps a batch from being delivered again while it
// stores it) could both store it. The rollups follow the records (repair.go).
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
	newest := records.BatchSpan(b.Records).To - 1
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
		// The rows may be stored without the id (see above): store those that are not.
		recs, err := s.missing(ctx, b.Records)
		if err != nil {
			return fmt.Errorf("records: batch %s: %w", b.ID, unavailable(err))
		}
		b.Records = recs
	}
	if len(b.Records) > 0 {
		if err := s.Ingest(ctx, b.Records); err != nil {
			return err
		}
	}
	w, err := s.conn.PrepareBatch(ctx, "INSERT INTO "+batchesTable+" (id, time)")
	if err == nil {
		if err = w.Append(b.ID, newest); err == nil {
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
