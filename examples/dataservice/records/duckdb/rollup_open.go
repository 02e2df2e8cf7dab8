package duckdb

import (
	"context"
	"database/sql"
	"slices"
	"strconv"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// ensureRollups makes each rollup of rs exact as this version keeps it, in tx (schema version
// 3, migrate.go):
//   - a rollup the database lacks (it is of an earlier version) is created: summed from the
//     records when it is kept in every transaction; empty, with its mark at 0, when kept in
//     the background (the step fills it);
//   - a background rollup without a mark was kept in every transaction by an earlier version,
//     so it holds every record: its mark is the end of its newest bucket;
//   - a rollup kept in every transaction that has a mark (an earlier version kept it in the
//     background) gains the records at and after its mark, and loses the mark.
func ensureRollups(ctx context.Context, tx *sql.Tx, rs []records.Rollup) error {
	if _, err := tx.ExecContext(ctx, marksSchema); err != nil {
		return err
	}
	for i := range rs {
		r := &rs[i]
		var n int
		err := tx.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", r.Table).Scan(&n)
		if err != nil {
			return err
		}
		if _, err := ensureRollup(ctx, tx, r, n > 0); err != nil {
			return err
		}
	}
	return nil
}

// ensureRollup does ensureRollups' work for r in tx, given whether its table exists, and
// returns its mark when it is kept in the background.
func ensureRollup(ctx context.Context, tx *sql.Tx, r *records.Rollup, exists bool) (int64, error) {
	mark, marked, err := readMark(ctx, tx, r)
	if err != nil {
		return 0, err
	}
	var stmts []string
	var args [][]any
	switch {
	case !exists && r.Background:
		stmts = []string{r.Schema(duckDialect), "DELETE FROM rollup_marks WHERE rollup = ?", "INSERT INTO rollup_marks VALUES (?, 0)"}
		args, mark = [][]any{nil, {r.Table}, {r.Table}}, 0
	case !exists:
		stmts = []string{r.Schema(duckDialect), "DELETE FROM rollup_marks WHERE rollup = ?", insertSums(r, "records", layerWhere(r, "true"))}
		args = [][]any{nil, {r.Table}, nil}
	case r.Background && !marked:
		var newest sql.NullInt64
		if err := tx.QueryRowContext(ctx, "SELECT max(time) FROM "+r.Table).Scan(&newest); err != nil {
			return 0, err
		}
		if newest.Valid {
			mark = newest.Int64 + r.Width
		}
		stmts, args = []string{"INSERT INTO rollup_marks VALUES (?, ?)"}, [][]any{{r.Table, mark}}
	case !r.Background && marked:
		stmts = []string{insertSums(r, "records", layerWhere(r, "time >= "+strconv.FormatInt(mark, 10))), "DELETE FROM rollup_marks WHERE rollup = ?"}
		args = [][]any{nil, {r.Table}}
	}
	for i, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt, args[i]...); err != nil {
			return 0, err
		}
	}
	return mark, nil
}

// newestRecord returns a time no record is after, for the background step and the open ends of
// reads (Store.newest), 0 when there is none: the last second of the newest bucket of the
// first rollup of rs kept in every transaction, which holds every record (a few rows to read,
// where the records' column is millions; neither needs more precision), or the newest record's
// when every rollup is kept in the background.
func newestRecord(ctx context.Context, db *sql.DB, rs []records.Rollup) (int64, error) {
	query, end := "SELECT max(time) FROM records", int64(0)
	for _, r := range rs {
		if !r.Background {
			query, end = "SELECT max(time) FROM "+r.Table, r.Width-1
			break
		}
	}
	var t sql.NullInt64
	if err := db.QueryRowContext(ctx, query).Scan(&t); err != nil {
		return 0, err
	}
	newest := t.Int64 + end
	if !t.Valid {
		newest = 0
	}
	// The layers': their first rollup, or their records (the transport's rollups hold none).
	for l := records.LayerHTTP; l < records.NumLayers; l++ {
		query, end := "SELECT max(time) FROM records WHERE layer = "+strconv.Itoa(int(l)), int64(0)
		if i := slices.IndexFunc(rs, func(r records.Rollup) bool { return r.Layer == l && !r.Background }); i >= 0 {
			query, end = "SELECT max(time) FROM "+rs[i].Table, rs[i].Width-1
		}
		if err := db.QueryRowContext(ctx, query).Scan(&t); err != nil {
			return 0, err
		}
		if t.Valid {
			newest = max(newest, t.Int64+end)
		}
	}
	return newest, nil
}
