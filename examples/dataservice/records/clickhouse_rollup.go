package records

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	chdriver "github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// ClickHouse's per-minute rollup is DuckDB's (rollup.go: rollupTable, rollupKeys, rollupSums,
// rollupWidth, rollable and Plan.split are read from there, nothing else), kept by the server
// itself: on each shard a SummingMergeTree table records_minute, partitioned by day as the
// records are, fed by the materialized view records_minute_mv on every INSERT into that
// shard's records, and in a cluster a Distributed table records_minute_dist over them. Merges
// add up rows of one minute and keys eventually, so reads always sum. The view writes after
// the records, not in one transaction with them: chRepair (clickhouse_repair.go) finds the
// days where the two differ and sums them anew.
const (
	chRollupView = rollupTable + "_mv"
	chRollupDist = rollupTable + "_dist"
)

// chRollupColumns are the rollup table's columns and types, in order: the minute, the keys,
// the sums and the record count.
func chRollupColumns() []string {
	cols := []string{"time Int64"}
	for _, c := range append(rollupKeys[:len(rollupKeys):len(rollupKeys)], rollupSums...) {
		k := c.Kind()
		if k == KindAddr {
			k = KindUint64 // each half of an address
		}
		for _, name := range c.sqlNames() {
			cols = append(cols, name+" "+chDialect.types[k])
		}
	}
	return append(cols, "records UInt64")
}

// chRollupEngine sums the rollup's counts of rows with the same minute and keys when it merges
// parts; the record count is never zero, so no row is ever dropped as empty.
func chRollupEngine() string {
	sums := []string{}
	for _, c := range rollupSums {
		sums = append(sums, c.Name())
	}
	return "SummingMergeTree((" + strings.Join(append(sums, "records"), ", ") + ")) PARTITION BY intDiv(time, 86400) ORDER BY (time, " + strings.Join(chRollupKeyNames(), ", ") + ")"
}

// chRollupNames are the names of the rollup table's columns, in order.
func chRollupNames() []string {
	var names []string
	for _, c := range chRollupColumns() {
		names = append(names, strings.Fields(c)[0])
	}
	return names
}

func chRollupKeyNames() []string {
	var keys []string
	for _, c := range rollupKeys {
		keys = append(keys, c.sqlNames()...)
	}
	return keys
}

// chRollupSelect sums the records matching where into rollup rows, named as the rollup's
// columns. The minute is aliased "time", as the table's column is: 18.16 and current versions
// both read "time" in GROUP BY (and in where, which only ever bounds whole minutes) as the
// minute, and inside its own expression as the column.
func chRollupSelect(where string) string {
	keys := chRollupKeyNames()
	sel := []string{"toInt64(time - ((time % 60) + 60) % 60) AS time"}
	sel = append(sel, keys...)
	for _, c := range rollupSums {
		sel = append(sel, "toUInt64(sum("+c.Name()+")) AS "+c.Name())
	}
	sel = append(sel, "toUInt64(count()) AS records")
	q := "SELECT " + strings.Join(sel, ", ") + " FROM records"
	if where != "" {
		q += " WHERE " + where
	}
	return q + " GROUP BY time, " + strings.Join(keys, ", ")
}

// chEnsureRollup creates on c (a shard) the rollup table and its view when missing. A rollup
// table of other columns (made for other rollup keys) is dropped with its view and made anew:
// it holds nothing the records do not, and chRepair sums it again from them. A table of that
// name that is not a SummingMergeTree is refused, never dropped.
func chEnsureRollup(ctx context.Context, c chdriver.Conn) error {
	return chEnsure(ctx, c, rollupTable, "SummingMergeTree", []string{chRollupView, rollupTable},
		"CREATE TABLE IF NOT EXISTS "+rollupTable+" ("+strings.Join(chRollupColumns(), ", ")+") ENGINE = "+chRollupEngine(),
		"CREATE MATERIALIZED VIEW IF NOT EXISTS "+chRollupView+" TO "+rollupTable+" AS "+chRollupSelect(""))
}

// chEnsureRollupDist creates on c the Distributed table over the shards' rollups, or makes it
// anew when its columns are not the rollup's (it holds no data of its own).
func chEnsureRollupDist(ctx context.Context, c chdriver.Conn, cluster, database string) error {
	return chEnsure(ctx, c, chRollupDist, "Distributed", []string{chRollupDist},
		"CREATE TABLE IF NOT EXISTS "+chRollupDist+" ("+strings.Join(chRollupColumns(), ", ")+") ENGINE = Distributed("+
			quoteIdent(cluster)+", "+quoteIdent(database)+", "+rollupTable+")")
}

// chEnsure makes table on c, of engine and the rollup's columns, with ddl: a table of other
// columns is first dropped with the others of drop (what it derives from the records); one of
// another engine is refused.
func chEnsure(ctx context.Context, c chdriver.Conn, table, engine string, drop []string, ddl ...string) error {
	have, e, err := tableShape(ctx, c, table)
	if err != nil {
		return err
	}
	if e != "" && e != engine {
		return fmt.Errorf("records: clickhouse table %s is a %s table, want a %s one; the service never alters a table: rename or drop it", table, e, engine)
	}
	if e != "" && strings.Join(have, ", ") != strings.Join(chRollupColumns(), ", ") {
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

// chAttachRollup gives each part of p (one key set each: ClickHouse has no GROUPING SETS)
// whose queries the rollup answers the same SELECT over the rollup table named table.
func chAttachRollup(p *Plan, qs []*Query, table string) {
	_ = p.each(func(part *Plan) error {
		if len(part.sets) != 1 {
			return nil
		}
		var set []int
		for _, a := range part.sets[0].answers {
			set = append(set, a.query)
		}
		if rollable(qs[set[0]]) {
			part.rollup = compileSets(chDialect, table, chDialect.sum("records"), qs, [][]int{set})
		}
		return nil
	})
}

// chUnion is the SQL and arguments that read [from, to) of p in one statement: the pieces
// Plan.split cuts the period into (whole minutes from the rollup, cut edges from the records),
// each a SELECT of the same columns, joined by UNION ALL, so a part costs one round trip.
func chUnion(p *Plan, from, to int64, rollup bool) (string, []any) {
	var texts []string
	var args []any
	piece := func(p *Plan, from, to int64) error {
		a := append([]any(nil), p.args...)
		a[p.sinceArg], a[p.sinceArg+1] = from, to
		texts, args = append(texts, p.query), append(args, a...)
		return nil
	}
	if !rollup {
		_ = piece(p, from, to)
	} else {
		_ = p.split(from, to, piece)
	}
	return strings.Join(texts, " UNION ALL "), args
}

func dayString(day int64) string { return strconv.FormatInt(day, 10) }
