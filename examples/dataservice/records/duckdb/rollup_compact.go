package duckdb

import (
	"context"
	"database/sql"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// compactRows is the fewest rows a rollup gains before it is compacted. Beyond, a rollup is
// compacted once it has gained half as many rows as its last compaction left: a live service
// compacts its few recent buckets often and cheaply, a load of old records spanning many
// buckets (whose compaction costs more) less often, so compaction costs at most about three
// times the rows appended.
const compactRows = 20_000

// rollupSpan is what a rollup gained since its last compaction.
type rollupSpan struct {
	rows   int   // rows appended
	lo, hi int64 // the first and last bucket they touched
	left   int   // rows the last compaction left in its span
}

// add counts rows appended to buckets lo to hi and reports whether a compaction is due.
func (sp *rollupSpan) add(rows int, lo, hi int64) bool {
	if sp.rows == 0 {
		sp.lo, sp.hi = lo, hi
	}
	sp.lo, sp.hi = min(sp.lo, lo), max(sp.hi, hi)
	sp.rows += rows
	return sp.rows >= max(compactRows, sp.left/2)
}

// batchTimes returns the first and last record time of batches, which hold a record.
func batchTimes(batches [][]records.Record) (lo, hi int64) {
	first := true
	for _, recs := range batches {
		for i := range recs {
			t := recs[i].Time
			if first {
				lo, hi, first = t, t, false
			}
			lo, hi = min(lo, t), max(hi, t)
		}
	}
	return lo, hi
}

// compactBuckets is the most buckets of a rollup one transaction of compact merges. A span of
// every bucket at once (a load of a day of old records touches them all) made DuckDB unnest and
// group every histogram entry of the rollup in one statement: over 10M capture records that
// outgrew the default memory limit (1 GiB) and failed, and an ingest running beside it failed
// too. A chunk's memory is that of its buckets' rows.
const compactBuckets = 60

// compact merges the rows of r of each bucket and keys from bucket lo to bucket hi into one, in
// a transaction for each compactBuckets buckets, and returns how many rows they make: the sums
// stay those of the records, in fewer rows. A read sees each chunk before or after, either
// exact. A chunk that fails leaves the rows of the later ones as they were.
func compact(ctx context.Context, r *records.Rollup, db *sql.DB, lo, hi int64) (int, error) {
	// The buckets that hold rows, in order: a span may reach over years of empty ones.
	rows, err := db.QueryContext(ctx, "SELECT DISTINCT time FROM "+r.Table+" WHERE "+records.TimeRange(lo, hi+1)+" ORDER BY time")
	if err != nil {
		return 0, err
	}
	var buckets []int64
	for rows.Next() {
		var t int64
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return 0, err
		}
		buckets = append(buckets, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	left := 0
	for i := 0; i < len(buckets); i += compactBuckets {
		n, err := compactChunk(ctx, r, db, buckets[i], buckets[min(i+compactBuckets, len(buckets))-1])
		if err != nil {
			return 0, err
		}
		left += n
	}
	return left, nil
}

// compactChunk is compact of buckets lo to hi, in one transaction.
func compactChunk(ctx context.Context, r *records.Rollup, db *sql.DB, lo, hi int64) (int, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var left int64
	for _, stmt := range []string{
		"CREATE TEMP TABLE rollup_compact AS " + sumRows(r, r.Table, records.TimeRange(lo, hi+1), "time", duckDialect.Partial("records")),
		"DELETE FROM " + r.Table + " WHERE " + records.TimeRange(lo, hi+1),
		"INSERT INTO " + r.Table + " SELECT * FROM rollup_compact",
		"DROP TABLE rollup_compact",
	} {
		res, err := tx.ExecContext(ctx, stmt)
		if err != nil {
			return 0, err
		}
		if strings.HasPrefix(stmt, "INSERT") {
			if left, err = res.RowsAffected(); err != nil {
				return 0, err
			}
		}
	}
	return int(left), tx.Commit()
}

// compactDue adds to each rollup's span the rows a group commit of batches appended (rows, in
// the order of s.rollups) and compacts the rollups that are due. The batches are stored
// already: a compaction that fails is tried again after the next group, and the rollup stays
// exact meanwhile, only larger.
func (s *Store) compactDue(ctx context.Context, batches [][]records.Record, rows []int) {
	lo, hi := batchTimes(batches)
	for i := range s.rollups {
		r, sp := &s.rollups[i], &s.spans[i]
		if !sp.add(rows[i], records.FloorTo(lo, r.Width), records.FloorTo(hi, r.Width)) {
			continue
		}
		if left, err := compact(ctx, r, s.db, sp.lo, sp.hi); err == nil {
			*sp = rollupSpan{left: left}
		}
	}
}

// compactPending compacts every rollup that gained rows since its last compaction, however
// few: the background step calls it, with the write token, once it has rolled what was due.
// Between compactions by compactDue a rollup holds up to compactRows rows more than its
// buckets and keys, one per group commit that touched them, which a query reads and adds up:
// over a day of 10M records loaded in batches of 100,000 the hourly rollup by application held
// 5.5 times the rows it holds compacted, and a percentile read 5.5 times the histogram entries
// (BENCHMARKS.md, issue 24). A live service's pending rows are those of its last buckets, a
// minute's worth, so this compaction is small; a load of old records spanning many buckets
// pays at most one compaction of its span a minute besides compactDue's.
func (s *Store) compactPending(ctx context.Context) error {
	for i := range s.rollups {
		sp := &s.spans[i]
		if sp.rows == 0 {
			continue
		}
		left, err := compact(ctx, &s.rollups[i], s.db, sp.lo, sp.hi)
		if err != nil {
			return err
		}
		*sp = rollupSpan{left: left}
	}
	return nil
}
