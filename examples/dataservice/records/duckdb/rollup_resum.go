package duckdb

import (
	"context"
	"database/sql"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// saturatedTable is the (empty) table that says a file's rollups hold saturated sums: the file
// was made, or repaired (resumWrapped), by a version that saturates them.
const saturatedTable = "rollup_sums_saturated"

// resumWrapped repairs, once, the rollups of a file of an earlier version, which appended a
// batch's sums as they wrapped around past 2^64 (its queries and its compactions over them
// failed instead): it finds the hours whose records sum past MaxSum (one pass over the
// records; a rollup row holds a part of one hour's records, so no other row can have wrapped)
// and sums each rollup's rows of those hours anew, before the rollup's mark, in tx (schema
// version 4, migrate.go), which also creates saturatedTable. A file that has that table is left as it is.
func resumWrapped(ctx context.Context, tx *sql.Tx, rs []records.Rollup) error {
	var done int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", saturatedTable).Scan(&done); err != nil || done > 0 {
		return err
	}
	var past []string
	for _, c := range records.RollupSums {
		past = append(past, "SUM("+c.Name()+") > "+records.MaxSumSQL)
	}
	marks, err := loadMarks(ctx, tx, rs)
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, "SELECT time - time % 3600 AS h FROM records GROUP BY h HAVING "+strings.Join(past, " OR "))
	if err != nil {
		return err
	}
	var hours []int64
	for rows.Next() {
		var h int64
		if err := rows.Scan(&h); err != nil {
			rows.Close()
			return err
		}
		hours = append(hours, h)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, h := range hours {
		for i := range rs {
			r := &rs[i]
			// Every width divides an hour; a mark is the end of a bucket.
			if end := min(h+3600, marks.of(r)); end > h {
				for _, stmt := range []string{"DELETE FROM " + r.Table + " WHERE " + records.TimeRange(h, end),
					insertSums(r, "records", records.TimeRange(h, end))} {
					if _, err := tx.ExecContext(ctx, stmt); err != nil {
						return err
					}
				}
			}
		}
	}
	if _, err := tx.ExecContext(ctx, "CREATE TABLE "+saturatedTable+" (unused BOOLEAN)"); err != nil {
		return err
	}
	return nil
}
