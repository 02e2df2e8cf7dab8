package clickhouse

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"

	chdriver "github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// ClickHouse keeps DuckDB's rollups (records/rollup.go: the rollup descriptors, their
// columns, and Compile's union of a SELECT per branch are read from there), kept by the server
// itself: on each shard, for each rollup, a SummingMergeTree table (its name), partitioned by
// day as the records are, fed by the materialized view <name>_mv on every INSERT into that
// shard's records, and in a cluster a Distributed table <name>_dist over them. Merges add up
// rows of one bucket and keys eventually, so reads always sum. The views write after the
// records, not in one transaction with them: chRepair (repair.go) finds the days
// where the two differ and sums them anew.

// chRollups are the rollups ClickHouse keeps: DuckDB's (records/duckdb's duckRollups) but for
// the one per 10 minutes with addresses, which would cost about what the records do, none in
// the background (the views keep each current). Their tables are those of DuckDB's.
var chRollups = []records.Rollup{
	{Table: "records_minute", Width: 60, Keys: []records.Column{records.ColProtocol, records.ColApplication, records.ColServerPort}},
	{Table: "records_hour", Width: 3600, Keys: []records.Column{records.ColProtocol, records.ColApplication, records.ColServerPort}},
	{Table: "records_hour_hosts", Width: 3600, Keys: []records.Column{records.ColProtocol, records.ColApplication, records.ColServerPort, records.ColServerIP, records.ColClientIP}},
	// The context's (schema version 5), as DuckDB's.
	{Table: "records_minute_context", Width: 60, Keys: records.ContextKeys},
	{Table: "records_hour_context", Width: 3600, Keys: records.ContextKeys},
}

// chContextRollups is how many rollups of chRollups are the context's, at its end: schema
// version 5 made them, the steps before made the others.
const chContextRollups = 2

// chView and chDist name the view feeding rollup r and the Distributed table over it.
func chView(r *records.Rollup) string { return r.Table + "_mv" }
func chDist(r *records.Rollup) string { return r.Table + "_dist" }

// chRollupColumns are rollup r's columns and types in ClickHouse, in table order: the sums
// Decimal128, which a SummingMergeTree adds up when it merges without wrapping around as UInt64
// did (schema version 2).
func chRollupColumns(r *records.Rollup) []string { return r.ColumnTypes(chDialect) }

// chRollupEngine sums r's counts of rows with the same bucket and keys when it merges parts;
// the record count is never zero, so no row is ever dropped as empty.
func chRollupEngine(r *records.Rollup) string {
	sums := []string{}
	for _, c := range records.RollupSums {
		sums = append(sums, c.Name())
	}
	return "SummingMergeTree((" + strings.Join(append(sums, "records"), ", ") + ")) PARTITION BY intDiv(time, 86400) ORDER BY (time, " + strings.Join(r.KeyNames(), ", ") + ")"
}

// chRollupSelect sums the records matching where into r's rows, named as r's columns. The
// bucket is aliased "time", as the table's column is: 18.16 and current versions both read
// "time" in GROUP BY (and in where, which only ever bounds whole days) as the bucket, and
// inside its own expression as the column.
func chRollupSelect(r *records.Rollup, where string) string {
	w := strconv.FormatInt(r.Width, 10)
	keys := r.KeyNames()
	sel := []string{"toInt64(time - ((time % " + w + ") + " + w + ") % " + w + ") AS time"}
	sel = append(sel, keys...)
	for _, c := range records.RollupSums {
		sel = append(sel, chDialect.Partial(c.Name())+" AS "+c.Name())
	}
	sel = append(sel, "toUInt64(count()) AS records")
	q := "SELECT " + strings.Join(sel, ", ") + " FROM records"
	if where != "" {
		q += " WHERE " + where
	}
	return q + " GROUP BY time, " + strings.Join(keys, ", ")
}

// chEnsureRollup creates on c (a shard) rollup r's table and its view when missing. A table of
// other columns (made for other rollup keys) is dropped with its view and made anew: it holds
// nothing the records do not, and chRepair sums it again from them. A table of that name that
// is not a SummingMergeTree is refused, never dropped.
func chEnsureRollup(ctx context.Context, c chdriver.Conn, r *records.Rollup) error {
	return chEnsure(ctx, c, r, r.Table, "SummingMergeTree", []string{chView(r), r.Table},
		"CREATE TABLE IF NOT EXISTS "+r.Table+" ("+strings.Join(chRollupColumns(r), ", ")+") ENGINE = "+chRollupEngine(r),
		"CREATE MATERIALIZED VIEW IF NOT EXISTS "+chView(r)+" TO "+r.Table+" AS "+chRollupSelect(r, ""))
}

// chEnsureRollupDist creates on c the Distributed table over the shards' tables of rollup r, or
// makes it anew when its columns are not the rollup's (it holds no data of its own).
func chEnsureRollupDist(ctx context.Context, c chdriver.Conn, cluster, database string, r *records.Rollup) error {
	return chEnsure(ctx, c, r, chDist(r), "Distributed", []string{chDist(r)},
		"CREATE TABLE IF NOT EXISTS "+chDist(r)+" ("+strings.Join(chRollupColumns(r), ", ")+") ENGINE = Distributed("+
			quoteIdent(cluster)+", "+quoteIdent(database)+", "+r.Table+")")
}

// chEnsure makes table on c, of engine and rollup r's columns, with ddl: a table of other
// columns is first dropped with the others of drop (what it derives from the records); one of
// another engine is refused.
func chEnsure(ctx context.Context, c chdriver.Conn, r *records.Rollup, table, engine string, drop []string, ddl ...string) error {
	have, e, err := tableShape(ctx, c, table)
	if err != nil {
		return err
	}
	if e != "" && e != engine {
		return fmt.Errorf("records: clickhouse table %s is a %s table, want a %s one; the service never alters a table: rename or drop it", table, e, engine)
	}
	if e != "" && strings.Join(have, ", ") != strings.Join(chRollupColumns(r), ", ") {
		for _, t := range drop {
			if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
				return fmt.Errorf("records: clickhouse: drop %s, of other columns than the rollup's: %w", t, unavailable(err))
			}
		}
	}
	for _, d := range ddl {
		if err := c.Exec(ctx, d); err != nil {
			return fmt.Errorf("records: clickhouse: create %s: %w", table, unavailable(err))
		}
	}
	return nil
}

// tableShape returns the columns ("name type") and engine of table on c; no engine when there
// is no such table.
func tableShape(ctx context.Context, c chdriver.Conn, table string) ([]string, string, error) {
	rows, err := c.Query(ctx, "SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = ?", table)
	if err != nil {
		return nil, "", fmt.Errorf("records: clickhouse: %w", unavailable(err))
	}
	var have []string
	for rows.Next() {
		var n, t string
		if err := rows.Scan(&n, &t); err != nil {
			rows.Close()
			return nil, "", fmt.Errorf("records: clickhouse: %w", err)
		}
		have = append(have, n+" "+t)
	}
	rows.Close()
	if len(have) == 0 {
		return nil, "", nil
	}
	var engine string
	if err := c.QueryRow(ctx, "SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = ?", table).Scan(&engine); err != nil {
		return nil, "", fmt.Errorf("records: clickhouse: %w", unavailable(err))
	}
	return have, engine, nil
}

func dayString(day int64) string { return strconv.FormatInt(day, 10) }
