package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// How DuckDB keeps a rollup in the background (rollup.background). Its mark, the time through
// which it is rolled up (a multiple of its width), is a row of the table rollup_marks, and the
// rollup holds exactly the sums of the records before its mark:
//   - A step (rollStep) sums, for each background rollup, the first whole bucket at or after
//     its mark that holds records and is due (it ends rollupSlack or more before both the
//     newest record and the wall clock), and the due buckets after it up to an hour from its
//     start (rollupStepSpan), from the records into the rollup, and advances the mark past
//     them, all in one transaction. It holds the write token, as ingest, retention and
//     compaction do, so no other transaction writes records while it runs: there are no
//     uncommitted records its snapshot could miss.
//   - Ingest adds to the rollup only the records before the mark, in its transaction: records
//     arriving late for a bucket already rolled (normally none; a load of old records into a
//     running store pays, for those, what every record paid when the rollup was kept so).
//   - A query reads the rollup only before the mark (bind), the rest from the finer levels and
//     the records. It reads the mark from memory before its SELECT: a mark is stored there once
//     its transaction committed, and the rollup before a committed mark stays equal to the
//     records before it in every later snapshot (late records and retention change both in
//     one transaction), so the SELECT's snapshot, taken after, holds it whole.
//   - Retention deletes the buckets before its cut and sums the bucket it cuts anew only when
//     that bucket is before the mark; compaction merges rows without changing sums.
//
// The step runs every rollupEvery, up to an hour of buckets a transaction until none is due,
// giving the write token back between transactions so ingest goes on; its errors are logged
// and it retries at the next tick (the records are stored already: nothing is lost, the rollup
// only lags). Close stops it without catching up: the next open resumes from the stored mark.
// CatchUp runs it at once. A rollup new to a database starts empty with its mark at 0 (the
// step fills it, an hour a transaction); one a database of an earlier version kept in every
// transaction, without a mark, is complete, and gets the end of its newest bucket as its mark.

// rollupSlack is how long after a bucket ends the step waits, for the newest record and the
// wall clock, before rolling it: records arriving up to this late go the fast way.
const rollupSlack = 10 * 60

// rollupEvery is how often the background step runs, in nanoseconds (a variable for tests,
// which step themselves; atomic, since they run in parallel with stores opening).
var rollupEvery atomic.Int64

func init() { rollupEvery.Store(int64(time.Minute)) }

// rollupPeriod returns rollupEvery as a duration.
func rollupPeriod() time.Duration { return time.Duration(rollupEvery.Load()) }

// marksSchema is the table of the background rollups' marks.
const marksSchema = "CREATE TABLE IF NOT EXISTS rollup_marks (rollup VARCHAR NOT NULL, through BIGINT NOT NULL)"

// rollupMarks are the marks of a store's background rollups by table, each changed only with
// the write token held and after the transaction that stored it committed.
type rollupMarks map[string]*atomic.Int64

// of returns the mark of r: math.MaxInt64 for a rollup kept in every transaction.
func (m rollupMarks) of(r *records.Rollup) int64 {
	if a := m[r.Table]; a != nil {
		return a.Load()
	}
	return math.MaxInt64
}

// readMark returns the stored mark of r; ok is false when it has none.
func readMark(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, r *records.Rollup) (int64, bool, error) {
	var m int64
	err := q.QueryRowContext(ctx, "SELECT through FROM rollup_marks WHERE rollup = ?", r.Table).Scan(&m)
	if err == sql.ErrNoRows {
		return 0, false, nil
	}
	return m, err == nil, err
}

// rollupStepSpan is the most time one step rolls, in whole buckets: a rollup finer than it
// rolls several buckets a transaction when it is behind (a bulk load, a new rollup in an earlier
// file), since each transaction costs ~13 ms however few records it sums (one bucket a step,
// the rollup per 10 minutes took 4,320 for 30 days, and a 1M-record load 3x as long). A step
// holds the write token, so this also bounds how long ingest waits for one: an hour of records
// for each background rollup.
const rollupStepSpan = 3600

// rollStep rolls, for each background rollup, its first due buckets at now (Unix seconds), as
// many as fit in rollupStepSpan from the first that holds records, all in one transaction (each
// costs ~13 ms however little it sums), and reports whether it rolled any; the caller holds
// the write token.
func (s *Store) rollStep(ctx context.Context, now int64) (bool, error) {
	due := func(r *records.Rollup) int64 { return records.FloorTo(min(now, s.newest.Load())-rollupSlack, r.Width) }
	if !slices.ContainsFunc(s.rollups, func(r records.Rollup) bool { return r.Background && s.marks.of(&r) < due(&r) }) {
		return false, nil // the step every minute, mostly: no transaction
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	marks := map[string]int64{}
	for i := range s.rollups {
		r := &s.rollups[i]
		if !r.Background {
			continue
		}
		mark, err := rollSpan(ctx, tx, r, s.marks.of(r), due(r))
		if err != nil {
			return false, err
		}
		if mark != s.marks.of(r) {
			marks[r.Table] = mark
		}
	}
	if len(marks) == 0 {
		return false, nil
	}
	if err := tx.Commit(); err != nil {
		return false, err
	}
	for table, m := range marks {
		s.marks[table].Store(m)
	}
	return true, nil
}

// rollSpan rolls r's first buckets in [mark, due) in tx (rollStep) and returns its new mark:
// mark itself when none holds records.
func rollSpan(ctx context.Context, tx *sql.Tx, r *records.Rollup, mark, due int64) (int64, error) {
	if mark >= due {
		return mark, nil
	}
	var first sql.NullInt64
	if err := tx.QueryRowContext(ctx, "SELECT min(time) FROM records WHERE "+records.TimeRange(mark, due)).Scan(&first); err != nil || !first.Valid {
		return mark, err
	}
	b := records.FloorTo(first.Int64, r.Width)
	e := min(due, b+max(r.Width, records.FloorTo(rollupStepSpan, r.Width)))
	if _, err := tx.ExecContext(ctx, insertSums(r, recordsOf(r), ofLayer(r, records.TimeRange(b, e)))); err != nil {
		return mark, err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE rollup_marks SET through = ? WHERE rollup = ?", e, r.Table); err != nil {
		return mark, err
	}
	return e, nil
}

// CatchUp rolls every bucket of the background rollups that is due now, an hour a transaction,
// then compacts the rows the other rollups gained since their last compaction (compactPending),
// and returns: what the background step does every minute. Tests and benchmarks call it to
// have the rollups current.
func (s *Store) CatchUp(ctx context.Context) error {
	return s.catchUp(ctx, time.Now().Unix())
}

// catchUp steps until nothing is due at now, taking the write token for each step, and
// compacts the rollups' pending rows with the last.
func (s *Store) catchUp(ctx context.Context, now int64) error {
	for {
		if err := s.lock(ctx); err != nil {
			return err
		}
		rolled, err := s.rollStep(ctx, now)
		if err == nil && !rolled {
			err = s.compactPending(ctx)
		}
		s.unlock()
		if err != nil || !rolled {
			return err
		}
	}
}

// background runs catchUp every interval until stop is closed, logging its errors.
func (s *Store) background(every time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-stop; cancel() }()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if err := s.CatchUp(ctx); err != nil && ctx.Err() == nil {
				s.logError(fmt.Sprintf("records: rolling up in the background failed; retried in %v, queries read the records past the rollups' marks meanwhile", every), err)
			}
		}
	}
}
