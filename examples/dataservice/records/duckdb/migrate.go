package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// schemaTable holds how many of steps a file has applied, in one row.
const schemaTable = "records_schema"

// step is one schema version of a DuckDB file: statements run in tx, once.
type step func(ctx context.Context, tx *sql.Tx) error

// steps are the file's schema versions; records_schema holds how many were applied, and each
// runs once, in one transaction that also records its number. Append only: a released step
// never changes; a new column, rollup or repair is a new step at the end.
//
// A file made before versioning (no records_schema) is at version 0, and each step finds what
// the program that made it left, as the code did before versioning: a step's statements are
// IF NOT EXISTS, and those of the rollups and of the sums look at the tables they repair.
// So every file of an earlier version opens, whatever it holds.
var steps = []step{
	// 1: the records table.
	func(ctx context.Context, tx *sql.Tx) error { return execAll(ctx, tx, duckSchema()) },
	// 2: the collector's columns (exporter, in_if, out_if), zero in the rows a file had.
	func(ctx context.Context, tx *sql.Tx) error { return execAll(ctx, tx, duckMigrations()...) },
	// 3: the rollups and their marks (rollup_open.go): created, or a file's rollups of an
	// earlier version made exact as this version keeps them.
	func(ctx context.Context, tx *sql.Tx) error { return ensureRollups(ctx, tx, unmeasured(duckRollups)) },
	// 4: the rollups' sums saturated (rollup_resum.go): the hours a file of an earlier version
	// wrapped around summed anew.
	func(ctx context.Context, tx *sql.Tx) error { return resumWrapped(ctx, tx, unmeasured(duckRollups)) },
	// 5: the capture probe's columns (rtt, ct, srt, dtt sums and samples, retransmissions, zero
	// windows, resets, server_name), zero in the rows a file had.
	func(ctx context.Context, tx *sql.Tx) error { return execAll(ctx, tx, duckMigrations()...) },
	// 6: the context's columns (zones, autonomous systems, countries, exporter and interface
	// names; records.Place), empty in the rows a file had, and the context's rollups.
	addContext,
	// 7 and 8: the histograms of the times (client_rtt_hist ... dtt_hist), then their samples
	// in the bucket of their average in the rows a file had (DuckDB commits no UPDATE of a
	// table altered in the same transaction).
	func(ctx context.Context, tx *sql.Tx) error { return histograms(ctx, tx, false) },
	func(ctx context.Context, tx *sql.Tx) error { return histograms(ctx, tx, true) },
	// 9 and 10: the rollups' measures and histograms (records.RollupMeasures, RollupHists),
	// then every rollup summed anew from the records (before its mark when kept in the
	// background), so that they hold the measures of the rows a file had.
	func(ctx context.Context, tx *sql.Tx) error { return rollupMeasures(ctx, tx, duckRollups, false) },
	func(ctx context.Context, tx *sql.Tx) error { return rollupMeasures(ctx, tx, duckRollups, true) },
	// 11 to 13: the context kept apart (context.go): the contexts table holding the distinct
	// contexts of the records, and the records' context column (and every column's default, zero or
	// empty); then each record's number set; then the context's columns dropped from the records (DuckDB commits no change of
	// the rows of a table altered in the same transaction, nor drops a column of one changed).
	func(ctx context.Context, tx *sql.Tx) error { return separateContext(ctx, tx, 0) },
	func(ctx context.Context, tx *sql.Tx) error { return separateContext(ctx, tx, 1) },
	func(ctx context.Context, tx *sql.Tx) error { return separateContext(ctx, tx, 2) },
	// 14: the rollups per 10 minutes and per 6 hours without addresses (tenMinutes, sixHours),
	// created and summed from the records (a file of version 2 or earlier made them in step 3).
	func(ctx context.Context, tx *sql.Tx) error {
		return ensureRollups(ctx, tx, []records.Rollup{tenMinutes, sixHours})
	},
	// 15: the ids of the batches stored through a queue (batches.go).
	func(ctx context.Context, tx *sql.Tx) error {
		return execAll(ctx, tx, "CREATE TABLE IF NOT EXISTS "+batchesTable+" (id VARCHAR PRIMARY KEY, time BIGINT NOT NULL)")
	},
	// 16: the layers' columns (records.LayerColumns: the layer, 0 the transport, and the keys
	// of HTTP, DNS and TLS), zero and empty in the rows a file had, all of the transport; the
	// rollups keep summing the records of their layer alone (ofLayer), and the HTTP layer's
	// rollups (httpRollups) are created, empty (no record had a layer), their measures with
	// defaults as step 9 gave the others', which a batch without measures leaves to them.
	func(ctx context.Context, tx *sql.Tx) error {
		if err := addColumns(ctx, tx, step16Columns...); err != nil {
			return err
		}
		if err := ensureRollups(ctx, tx, unmeasured(httpRollups)); err != nil {
			return err
		}
		return rollupMeasures(ctx, tx, httpRollups, false)
	},
	// 17: the routes' AS paths and communities (records.RouteColumns), empty in the rows a
	// file had. Kept in the records table, not in contexts: a list is no context Value, and
	// ingest appends them only in batches that fill them (probeColumns).
	func(ctx context.Context, tx *sql.Tx) error { return addColumns(ctx, tx, records.RouteColumns...) },
	// 18: the HTTP layer's rollups keep their histograms as bytes (records.Rollup.HistBytes):
	// each histogram column of each converted in place from its array of entries to the same
	// entries as bytes (step18BytesSQL), its default the empty value. The rows stay as they were.
	func(ctx context.Context, tx *sql.Tx) error { return histsAsBytes(ctx, tx, httpRollups) },
	// 19: those bytes narrowed (records.AppendHistBytes): each entry in the fewest bytes that
	// hold the histogram's largest, after a byte of that width, where step 18 wrote 8.
	func(ctx context.Context, tx *sql.Tx) error { return narrowHists(ctx, tx, httpRollups) },
}

// histsAsBytes is step 18: the histogram columns of the rollups of rs converted to bytes, but
// those a later version converted already (its file's version lost, steps run again).
func histsAsBytes(ctx context.Context, tx *sql.Tx, rs []records.Rollup) error {
	for _, r := range rs {
		for _, c := range records.RollupHists {
			var typ string
			err := tx.QueryRowContext(ctx, "SELECT data_type FROM information_schema.columns WHERE table_name = ? AND column_name = ?",
				r.Table, c.Name()).Scan(&typ)
			if err != nil {
				return err
			}
			if typ == "BLOB" {
				continue
			}
			alter := "ALTER TABLE " + r.Table + " ALTER COLUMN " + c.Name()
			if err := execAll(ctx, tx, alter+" DROP DEFAULT", alter+" SET DATA TYPE BLOB USING "+step18BytesSQL(c.Name()),
				alter+" SET DEFAULT ''::BLOB"); err != nil {
				return err
			}
		}
	}
	return nil
}

// step18BytesSQL is the SQL of the histogram as bytes, as step 18 wrote them, of entries (an
// array by strictly increasing index): each entry's 16 hex digits, the whole decoded. Frozen.
func step18BytesSQL(entries string) string {
	return "from_hex(array_to_string(list_transform(" + entries + ", lambda e: printf('%016x', e)), ''))"
}

// step18EntriesSQL is the SQL of the entries of a histogram as step 18 wrote its bytes, in
// column col: an array, read through its hex digits, 16 an entry. Frozen.
func step18EntriesSQL(col string) string {
	return "list_transform(regexp_extract_all(hex(" + col + "), '.{16}'), lambda x: CAST('0x' || x AS UBIGINT))"
}

// narrowedComment is the comment step 19 gives each histogram column it narrowed: a file
// whose version was lost runs the steps again, and bytes narrowed read as step 18's would be
// corrupt.
const narrowedComment = "records.AppendHistBytes"

// narrowHists is step 19: each histogram column of the rollups of rs rewritten from the bytes
// step 18 wrote (step18EntriesSQL) to those AppendHistBytes writes (histBytesSQL), but those
// narrowed already.
func narrowHists(ctx context.Context, tx *sql.Tx, rs []records.Rollup) error {
	for _, r := range rs {
		for _, c := range records.RollupHists {
			var comment sql.NullString
			err := tx.QueryRowContext(ctx, "SELECT comment FROM duckdb_columns() WHERE table_name = ? AND column_name = ?",
				r.Table, c.Name()).Scan(&comment)
			if err != nil {
				return err
			}
			if comment.String == narrowedComment {
				continue
			}
			if err := execAll(ctx, tx, "UPDATE "+r.Table+" SET "+c.Name()+" = "+histBytesSQL(step18EntriesSQL(c.Name())),
				"COMMENT ON COLUMN "+r.Table+"."+c.Name()+" IS '"+narrowedComment+"'"); err != nil {
				return err
			}
		}
	}
	return nil
}

// step16Columns are the columns step 16 adds, as that step added them: frozen.
var step16Columns = records.ColumnRange(records.ColLayer, records.ColTLSIssuer)

// ofLayer is the condition where of the records rollup r sums, restricted to those of its
// layer: a rollup holds no record of another. The schema steps before 16, whose records had
// no layer and whose rollups are all of the transport, sum every record.
func ofLayer(r *records.Rollup, where string) string {
	return "(" + where + ") AND layer = " + strconv.Itoa(int(r.Layer))
}

// layerWhere is where, restricted to r's layer when r is not of the transport (whose rollups
// the steps before 16 made, without a layer column).
func layerWhere(r *records.Rollup, where string) string {
	if r.Layer == records.LayerTransport {
		return where
	}
	return ofLayer(r, where)
}

// step6Columns are the context columns step 6 adds, as that step added them: frozen, since the
// records table may gain more later, each in a step of its own (addColumns).
var step6Columns = records.ColumnRange(records.ColClientZone, records.ColOutIfAlias)

// addContext is step 6: the context's columns added where missing, then its rollups
// (contextRollups) created and summed from the records.
func addContext(ctx context.Context, tx *sql.Tx) error {
	if err := addColumns(ctx, tx, step6Columns...); err != nil {
		return err
	}
	return ensureRollups(ctx, tx, unmeasured(contextRollups))
}

// addColumns adds cols to the records table where missing, each of its kind's type and zero in
// the rows a file had (as its descriptor in package records says): a step that adds a column is
// one call of it at the end of steps.
func addColumns(ctx context.Context, tx *sql.Tx, cols ...records.Column) error {
	for _, c := range cols {
		k := c.Kind()
		if k == records.KindAddr {
			k = records.KindUint64
		}
		for _, n := range c.SQLNames() {
			if err := execAll(ctx, tx, "ALTER TABLE records ADD COLUMN IF NOT EXISTS "+n+" "+duckDialect.Types[k]+" DEFAULT "+zeroOf(k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// histograms is steps 7 (fill false) and 8 (fill true): a histogram column for each time,
// frozen here as this version made them, then filled in the rows a file had with the samples
// in the bucket of their average, as ingest keeps a time that came without a histogram
// (records.Timing.Buckets). The bucket is computed in SQL, as histogram.Index does in Go, but
// for an average on a bucket's bound to the last digit of a float, which may fall in its
// neighbour (2 % away).
func histograms(ctx context.Context, tx *sql.Tx, fill bool) error {
	for _, t := range []struct{ hist, sum, samples string }{
		{"client_rtt_hist", "client_rtt_us", "client_rtt_samples"}, {"server_rtt_hist", "server_rtt_us", "server_rtt_samples"},
		{"ct_hist", "ct_us", "ct_samples"}, {"srt_hist", "srt_us", "srt_samples"}, {"dtt_hist", "dtt_us", "dtt_samples"},
	} {
		stmt := "ALTER TABLE records ADD COLUMN IF NOT EXISTS " + t.hist + " UBIGINT[] DEFAULT []"
		if fill {
			stmt = "UPDATE records SET " + t.hist + " = [" + records.HistEntrySQL(t.sum, t.samples, "ln", "UBIGINT") + "] WHERE " +
				t.samples + " > 0 AND len(" + t.hist + ") = 0"
		}
		if err := execAll(ctx, tx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// rollupMeasures is steps 9 (fill false) and 10 (fill true): the columns of the measures and
// histograms added to each rollup of rs (after its record count, as records.Rollup.Columns
// orders them with Measures), then each rollup's rows replaced by the sums of the records
// (before its mark when it is kept in the background; it has no row after), as this version
// keeps them. Two steps, since DuckDB commits no change of the rows of a table altered in the
// same transaction.
func rollupMeasures(ctx context.Context, tx *sql.Tx, rs []records.Rollup, fill bool) error {
	for i := range rs {
		r := &rs[i]
		if !fill {
			for _, c := range records.RollupMeasures {
				if err := execAll(ctx, tx, "ALTER TABLE "+r.Table+" ADD COLUMN IF NOT EXISTS "+c.Name()+" UBIGINT DEFAULT 0"); err != nil {
					return err
				}
			}
			for _, c := range records.RollupHists {
				if err := execAll(ctx, tx, "ALTER TABLE "+r.Table+" ADD COLUMN IF NOT EXISTS "+c.Name()+" UBIGINT[] DEFAULT []"); err != nil {
					return err
				}
			}
			continue
		}
		where := "true"
		if r.Background {
			mark, _, err := readMark(ctx, tx, r)
			if err != nil {
				return err
			}
			where = "time < " + strconv.FormatInt(mark, 10)
		}
		if err := execAll(ctx, tx, "DELETE FROM "+r.Table, insertSums(r, "records", where)); err != nil {
			return err
		}
	}
	return nil
}

// separateContext is steps 11 (part 0), 12 (1) and 13 (2): the context's columns of the
// records (step6Columns) moved to the contexts table, each record keeping its context's number.
func separateContext(ctx context.Context, tx *sql.Tx, part int) error {
	var names []string
	for _, c := range step6Columns {
		names = append(names, c.Name())
	}
	switch part {
	case 0:
		if err := execAll(ctx, tx, contextsSchema(), "ALTER TABLE records ADD COLUMN IF NOT EXISTS context UBIGINT DEFAULT 0"); err != nil {
			return err
		}
		// Ingest leaves the columns no record of a batch fills to their defaults (appendRecords),
		// which the columns of a file's table made by step 1 lacked.
		all, kinds := duckColumns()
		for i, n := range all {
			if err := execAll(ctx, tx, "ALTER TABLE records ALTER COLUMN "+n+" SET DEFAULT "+zeroOf(kinds[i])); err != nil {
				return err
			}
		}
		rows, err := tx.QueryContext(ctx, "SELECT DISTINCT "+strings.Join(names, ", ")+" FROM records") // in contextColumns' order
		if err != nil {
			return err
		}
		defer rows.Close()
		fresh := map[uint64]*contextValues{}
		for rows.Next() {
			var vs contextValues
			dst := make([]any, len(vs))
			for i, c := range contextColumns {
				if c.Kind() == records.KindString {
					dst[i] = &vs[i].Str
				} else {
					dst[i] = &vs[i].Lo
				}
			}
			if err := rows.Scan(dst...); err != nil {
				return err
			}
			fresh[vs.id()] = &vs
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return insertContexts(fresh, func(stmt string, args []any) error { _, err := tx.ExecContext(ctx, stmt, args...); return err })
	case 1:
		var same []string
		for _, n := range names {
			same = append(same, "records."+n+" = "+contextsTable+"."+n)
		}
		return execAll(ctx, tx, "UPDATE records SET context = "+contextsTable+".id FROM "+contextsTable+" WHERE "+strings.Join(same, " AND "))
	}
	for _, n := range names {
		if err := execAll(ctx, tx, "ALTER TABLE records DROP COLUMN IF EXISTS "+n); err != nil {
			return err
		}
	}
	return nil
}

// withAdded returns steps and, after them, a step that adds each column a test build added
// (records.AddColumn), as its descriptor says (addColumns).
func withAdded(steps []step) []step {
	for c := records.NumColumns; c < records.ColumnCount(); c++ {
		steps = append(slices.Clip(steps), func(ctx context.Context, tx *sql.Tx) error { return addColumns(ctx, tx, c) })
	}
	return steps
}

// migrate brings the file of db to the latest version, a step a transaction, and refuses a file
// whose version is newer than this program's (one it could damage).
func migrate(ctx context.Context, db *sql.DB) error {
	steps := withAdded(steps)
	if err := execAll(ctx, db, "CREATE TABLE IF NOT EXISTS "+schemaTable+" (version INTEGER NOT NULL)"); err != nil {
		return err
	}
	var v int
	if err := db.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM "+schemaTable).Scan(&v); err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	if v > len(steps) {
		return fmt.Errorf("the file's schema is at version %d, newer than this program's %d: run the newer program", v, len(steps))
	}
	for i := v; i < len(steps); i++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		err = steps[i](ctx, tx)
		if err == nil {
			err = execAll(ctx, tx, "DELETE FROM "+schemaTable, fmt.Sprintf("INSERT INTO %s VALUES (%d)", schemaTable, i+1))
		}
		if err == nil {
			err = tx.Commit()
		}
		if err != nil {
			tx.Rollback()
			return fmt.Errorf("migrating to schema version %d: %w", i+1, err)
		}
	}
	if v < len(steps) {
		// The steps' statements go into the file, not the write-ahead log: DuckDB failed to
		// replay a log holding steps 9-10 (ALTER of a rollup, then its rows summed anew)
		// after a kill (TestDuckDBSurvivesKill).
		if err := execAll(ctx, db, "CHECKPOINT"); err != nil {
			return fmt.Errorf("checkpointing the migrated schema: %w", err)
		}
	}
	return nil
}

// execAll runs stmts in order on q, stopping at the first error.
func execAll(ctx context.Context, q interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, stmts ...string) error {
	for _, stmt := range stmts {
		if _, err := q.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// loadMarks returns the stored marks of the background rollups of rs.
func loadMarks(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, rs []records.Rollup) (rollupMarks, error) {
	marks := rollupMarks{}
	for i := range rs {
		if r := &rs[i]; r.Background {
			m, ok, err := readMark(ctx, q, r)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, fmt.Errorf("rollup %s has no mark", r.Table)
			}
			marks[r.Table] = &atomic.Int64{}
			marks[r.Table].Store(m)
		}
	}
	return marks, nil
}
