package duckdb

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"

	"github.com/duckdb/duckdb-go/v2"
)

// The ingest path: a batch is validated, joins a group commit (group.go), and its records,
// their contexts (context.go) and its rollups' sums (rollup_write.go) are appended in one
// transaction.

// Ingest validates recs (a bad record is a *BatchError and nothing is stored) and appends them
// through DuckDB's appender in one transaction, which concurrent Ingest calls share (group
// commit, group.go): all of recs is stored or none, and a nil error means the transaction is
// committed to the write-ahead log. When a group's commit fails, every call in it gets the error
// and nothing of the group is stored.
func (s *Store) Ingest(ctx context.Context, recs []records.Record) error {
	if len(recs) == 0 {
		return nil
	}
	if err := records.ValidateBatch(recs, time.Now()); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("records: ingest: %w", err)
	}
	span := records.BatchSpan(recs)
	s.changes.Touch(span.From, span.To)
	defer s.changes.Touch(span.From, span.To)
	if err := s.ingestGrouped(ctx, s.group.join(recs, ""), s.commit); err != nil {
		return fmt.Errorf("records: ingest: %w", err)
	}
	return nil
}

// Changes reports the times of the records each Ingest and DeleteBefore touches, before it
// writes and after: the database file has one process, so these are all its changes.
func (s *Store) Changes() *records.Changes { return &s.changes }

// commit appends the batches of ms in one transaction; the caller holds the write token.
func (s *Store) commit(ctx context.Context, ms []*member) error {
	ms, ids, err := s.unstored(ctx, ms)
	if err != nil || len(ms) == 0 {
		return err
	}
	batches := make([][]records.Record, len(ms))
	n := 0
	for i, m := range ms {
		batches[i] = m.recs
		n += len(m.recs)
	}
	_, hi := batchTimes(batches)
	s.newest.Store(max(s.newest.Load(), hi))
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var rows []int // the rows each rollup gained
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(*duckdb.Conn)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", dc)
		}
		rows, err = s.appendInTx(ctx, c, batches, ids)
		return err
	})
	if err != nil {
		return fmt.Errorf("%d records in %d batches: %w", n, len(ms), err)
	}
	s.compactDue(ctx, batches, rows)
	return nil
}

// appendInTx appends batches to the records table, and their sums to the rollups, in one
// transaction on c; it returns how many rows each rollup gained.
func (s *Store) appendInTx(ctx context.Context, c *duckdb.Conn, batches [][]records.Record, batchIDs []batchID) ([]int, error) {
	tx, err := c.BeginTx(ctx, driver.TxOptions{})
	if err != nil {
		return nil, err
	}
	var rows []int
	ids, fresh := s.contexts.newContexts(batches, make([]uint64, 0, batchLen(batches)))
	err = appendRecords(ctx, c, batches, ids)
	if err == nil {
		err = insertContexts(fresh, connExec(ctx, c))
	}
	if err == nil {
		err = insertBatchIDs(batchIDs, connExec(ctx, c))
	}
	if err == nil {
		marks := make([]int64, len(s.rollups))
		for i := range s.rollups {
			marks[i] = s.marks.of(&s.rollups[i])
		}
		rows, err = appendRollups(c, s.rollups, marks, batches)
	}
	if err != nil {
		if rerr := tx.Rollback(); rerr != nil {
			// The connection's state is unknown: have database/sql discard it.
			return nil, errors.Join(err, rerr, driver.ErrBadConn)
		}
		return nil, err
	}
	if err = tx.Commit(); err == nil {
		s.contexts.committed(fresh)
		s.names.learn(fresh)
	}
	return rows, err
}

// batchLen is how many records batches hold.
func batchLen(batches [][]records.Record) int {
	n := 0
	for _, b := range batches {
		n += len(b)
	}
	return n
}

// appendRecords appends batches to the records table through an appender on c, each record
// with the number of its context, from ids (one per record, in order).
//
// The capture probe's columns, and the layers', that no record of batches fills (all of them in
// a batch of flow records) are left to their defaults, zero, empty: DuckDB's cost of a record grows with the
// columns appended, whatever their values, and its Go appender costs about a microsecond a
// record for five empty lists (BENCHMARKS.md, issue 25).
func appendRecords(ctx context.Context, c *duckdb.Conn, batches [][]records.Record, ids []uint64) error {
	var filled uint64
	for _, recs := range batches {
		filled |= records.Filled(recs, probeColumns|records.LayerMask)
	}
	rb := records.RowBuilder{Omit: records.ContextMask | (probeColumns|records.LayerMask)&^filled}
	var names []string
	for col := range records.ColumnCount() {
		if rb.Omit&(1<<col) == 0 {
			names = append(names, col.SQLNames()...)
		}
	}
	a, err := duckdb.NewAppenderWithColumns(c, "", "", "records", append(names, "context"))
	if err != nil {
		return err
	}
	row := make([]driver.Value, 0, len(names)+1)
	var idBox driver.Value
	k := 0
	for _, recs := range batches {
		for i := range recs {
			if idBox == nil || idBox.(uint64) != ids[k] {
				idBox = ids[k]
			}
			k++
			row = append(rb.AppendRow(row[:0], &recs[i]), idBox)
			if err = a.AppendRow(row...); err != nil {
				break
			}
		}
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		// Discard what was appended; Close then has nothing left to write.
		return errors.Join(err, a.Clear(), a.Close())
	}
	return a.CloseWithCancel(ctx)
}

// probeColumns has the bits (1 << c) of the columns most records leave empty, appended only
// in a batch that fills them: the capture probe's (its measures, the server's name and the
// histograms) and the routes' lists (records.RouteColumns: empty without BGP).
var probeColumns = func() uint64 {
	m := uint64(1) << records.ColServerName
	for _, c := range records.RouteColumns {
		m |= 1 << c
	}
	for _, c := range append(slices.Clone(records.RollupMeasures), records.RollupHists...) {
		m |= 1 << c
	}
	return m
}()
