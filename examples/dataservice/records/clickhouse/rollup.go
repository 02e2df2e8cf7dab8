package clickhouse

import (
	"context"
	"fmt"
	"slices"
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

// chTransportRollups are the transport's rollups ClickHouse keeps: DuckDB's (records/duckdb's
// duckRollups) but for the one per 10 minutes with addresses, which would cost about what the
// records do, none in the background (the views keep each current). Their tables are those of
// DuckDB's, and like them each keeps the capture probe's measures and histograms (Measures;
// schema version 7). The schema steps before 11 made these alone.
var chTransportRollups = []records.Rollup{
	{Table: "records_minute", Width: 60, Keys: []records.Column{records.ColProtocol, records.ColApplication, records.ColServerPort}, Measures: true},
	{Table: "records_hour", Width: 3600, Keys: []records.Column{records.ColProtocol, records.ColApplication, records.ColServerPort}, Measures: true},
	{Table: "records_hour_hosts", Width: 3600, Keys: []records.Column{records.ColProtocol, records.ColApplication, records.ColServerPort, records.ColServerIP, records.ColClientIP}, Measures: true},
	// The context's (schema version 5), as DuckDB's.
	{Table: "records_minute_context", Width: 60, Keys: records.ContextKeys, Measures: true},
	{Table: "records_hour_context", Width: 3600, Keys: records.ContextKeys, Measures: true},
}

// chHTTPRollups are the HTTP layer's rollups, by host and status per minute and hour as
// DuckDB's, and per 6 hours (schema version 11) and 10 minutes (12) for the percentiles
// (ForHists): without them a statement FROM http read every request, and a day's p95(srt) BY
// http.host read every request's histogram (BENCHMARKS.md, "Layers"). The one per 10 minutes
// reads the cut hours at a period's ends in up to 5 rows a key rather than up to 59: that
// p95 at 10M requests a day, 36 ms to 32. Their views sum the requests alone (chLayerCond).
var chHTTPRollups = []records.Rollup{
	{Table: "records_http_minute", Width: 60, Keys: []records.Column{records.ColHTTPHost, records.ColHTTPStatus}, Measures: true, Layer: records.LayerHTTP},
	{Table: "records_http_hour", Width: 3600, Keys: []records.Column{records.ColHTTPHost, records.ColHTTPStatus}, Measures: true, Layer: records.LayerHTTP},
	{Table: "records_http_6hour", Width: 6 * 3600, Keys: []records.Column{records.ColHTTPHost, records.ColHTTPStatus}, Measures: true, ForHists: true, Layer: records.LayerHTTP},
	{Table: "records_http_10min", Width: 600, Keys: []records.Column{records.ColHTTPHost, records.ColHTTPStatus}, Measures: true, ForHists: true, Layer: records.LayerHTTP},
}

// chRollups are every rollup ClickHouse keeps: the transport's, then the HTTP layer's.
var chRollups = append(slices.Clone(chTransportRollups), chHTTPRollups...)

// chContextRollups is how many rollups of chTransportRollups are the context's, at its end:
// schema version 5 made them, the steps before made the others.
const chContextRollups = 2

// chUnmeasured returns copies of rs without the measures (Measures false): the rollups as the
// schema steps before version 7 made them, whose records table had no measures yet.
func chUnmeasured(rs []records.Rollup) []records.Rollup {
	out := slices.Clone(rs)
	for i := range out {
		out[i].Measures = false
	}
	return out
}

// chView and chDist name the view feeding rollup r and the Distributed table over it.
func chView(r *records.Rollup) string { return r.Table + "_mv" }
func chDist(r *records.Rollup) string { return r.Table + "_dist" }

// chHistMap names the Nested column in which a rollup keeps histogram column col
// ("srt_hist": srt_histMap.index Array(UInt16), the bucket indexes, and srt_histMap.count
// Array(Decimal(38, 0)), their counts): a SummingMergeTree adds up, as it merges rows, the
// counts of equal indexes of a Nested column whose name ends in Map (18.16 as current
// versions, whatever columns its engine names to sum), exactly, as it does the sums. The
// column col itself is an ALIAS of the rollup that reads them as entries (chEntries), so that
// a union's branch over the rollup reads col as one over the records does.
func chHistMap(col string) string { return col + "Map" }

// chColumn is a column of a rollup table: its name and type as system.columns gives them, and
// the expression of an ALIAS (none for a stored column).
type chColumn struct{ name, typ, alias string }

// chRollupTable returns rollup r's columns in ClickHouse, in table order: those of
// records.Rollup.Columns with the sums and measures Decimal128 (ColumnTypes), which a
// SummingMergeTree adds up when it merges without wrapping around as UInt64 did (schema
// version 2), each histogram as its Nested map (chHistMap), then the histograms' aliases.
func chRollupTable(r *records.Rollup) []chColumn {
	var out, aliases []chColumn
	for _, c := range r.ColumnTypes(chDialect) {
		name, typ, _ := strings.Cut(c, " ")
		if !slices.ContainsFunc(records.RollupHists, func(h records.Column) bool { return h.Name() == name }) {
			out = append(out, chColumn{name: name, typ: typ})
			continue
		}
		m := chHistMap(name)
		out = append(out, chColumn{name: m + ".index", typ: "Array(UInt16)"}, chColumn{name: m + ".count", typ: "Array(" + chDialect.SumType + ")"})
		aliases = append(aliases, chColumn{name: name, typ: typ, alias: chEntries("`"+m+".index`", "`"+m+".count`")})
	}
	return append(out, aliases...)
}

// chRollupColumns are rollup r's columns and types ("name type") in table order, as
// system.columns lists them (tableShape).
func chRollupColumns(r *records.Rollup) []string {
	var out []string
	for _, c := range chRollupTable(r) {
		out = append(out, c.name+" "+c.typ)
	}
	return out
}

// chRollupDefs are the column definitions of rollup r's table in a CREATE TABLE.
func chRollupDefs(r *records.Rollup) string {
	var out []string
	for _, c := range chRollupTable(r) {
		d := "`" + c.name + "` " + c.typ
		if c.alias != "" {
			d += " ALIAS " + c.alias
		}
		out = append(out, d)
	}
	return strings.Join(out, ", ")
}

// chRollupStored are the names of rollup r's stored columns (not its aliases) in table order,
// quoted, as an INSERT names them.
func chRollupStored(r *records.Rollup) string {
	var out []string
	for _, c := range chRollupTable(r) {
		if c.alias == "" {
			out = append(out, "`"+c.name+"`")
		}
	}
	return strings.Join(out, ", ")
}

// chRollupEngine sums r's counts of rows with the same bucket and keys when it merges parts
// (and its measures, and its histograms' maps, which it sums unnamed); the record count is
// never zero, so no row is ever dropped as empty. Its index has a mark every
// chRollupGranularity rows (schema step 8).
func chRollupEngine(r *records.Rollup) string {
	return chRollupEngine7(r) + " " + chGranularity
}

// chRollupGranularity is the rows between two marks of a rollup's index, the least a read of a
// range reads of each part it touches. A day's percentile by application read the histograms
// of the per-minute rollup's parts whole for the minutes cut at its start (8,192 rows a mark
// against some 3,400 a part); at 1,024 it took 22 ms where it took 30-33 (BENCHMARKS.md,
// "Percentiles within 1.5x of traffic?"). ClickHouse 18.16 and current versions take the
// setting; a rollup's index stays a few hundred marks a day.
const chRollupGranularity = 1024

// chGranularity is the SETTINGS clause of chRollupGranularity, as system.tables' engine_full
// gives it.
var chGranularity = "SETTINGS index_granularity = " + strconv.Itoa(chRollupGranularity)

// chRollupEngine7 is chRollupEngine as the schema steps before 8 made it, at ClickHouse's
// default granularity (8,192).
func chRollupEngine7(r *records.Rollup) string {
	sums := []string{}
	for _, c := range records.RollupSums {
		sums = append(sums, c.Name())
	}
	sums = append(sums, "records")
	if r.Measures {
		for _, c := range records.RollupMeasures {
			sums = append(sums, c.Name())
		}
	}
	return "SummingMergeTree((" + strings.Join(sums, ", ") + ")) PARTITION BY intDiv(time, 86400) ORDER BY (time, " + strings.Join(r.KeyNames(), ", ") + ")"
}

// chRollupSelect sums the records matching where into r's rows, named as r's stored columns.
// The bucket is aliased "time", as the table's column is: 18.16 and current versions both read
// "time" in GROUP BY (and in where, which only ever bounds whole days) as the bucket, and
// inside its own expression as the column. A histogram's map sums the counts of each index as
// Decimal128, exactly, as the table's merges do; reads saturate them (chEntries).
func chRollupSelect(r *records.Rollup, where string) string {
	w := strconv.FormatInt(r.Width, 10)
	keys := r.KeyNames()
	sel := []string{"toInt64(time - ((time % " + w + ") + " + w + ") % " + w + ") AS time"}
	sel = append(sel, keys...)
	for _, c := range records.RollupSums {
		sel = append(sel, chDialect.Partial(c.Name())+" AS "+c.Name())
	}
	sel = append(sel, "toUInt64(count()) AS records")
	if r.Measures {
		for _, c := range records.RollupMeasures {
			sel = append(sel, chDialect.Partial(c.Name())+" AS "+c.Name())
		}
		for _, c := range records.RollupHists {
			m, name := chSumMap(c.Name()), chHistMap(c.Name())
			sel = append(sel, "tupleElement("+m+", 1) AS `"+name+".index`", "tupleElement("+m+", 2) AS `"+name+".count`")
		}
	}
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
	return chEnsureRollupWhere(ctx, c, r, "")
}

// chEnsureRollupWhere is chEnsureRollup with a view that sums the records matching where
// (every record when "").
func chEnsureRollupWhere(ctx context.Context, c chdriver.Conn, r *records.Rollup, where string) error {
	return chEnsure(ctx, c, r, r.Table, "SummingMergeTree", []string{chView(r), r.Table},
		"CREATE TABLE IF NOT EXISTS "+r.Table+" ("+chRollupDefs(r)+") ENGINE = "+chRollupEngine(r),
		"CREATE MATERIALIZED VIEW IF NOT EXISTS "+chView(r)+" TO "+r.Table+" AS "+chRollupSelect(r, where))
}

// chLayerCond is the condition of the records rollup r sums (schema version 9): those of its
// layer, the transport's (layer 0) for most. A statement of a layer without rollups reads the
// records (records.Query.Layer). IN, not =: 18.16 reading a part made before the column, whose
// histograms' DEFAULT holds the constant 0 too, fails on a second column "0".
func chLayerCond(r *records.Rollup) string {
	return "layer IN (" + strconv.Itoa(int(r.Layer)) + ")"
}

// chEnsureRollupDist creates on c the Distributed table over the shards' tables of rollup r, or
// makes it anew when its columns are not the rollup's (it holds no data of its own). Its
// histograms are the aliases the shards' tables have.
func chEnsureRollupDist(ctx context.Context, c chdriver.Conn, cluster, database string, r *records.Rollup) error {
	return chEnsure(ctx, c, r, chDist(r), "Distributed", []string{chDist(r)},
		"CREATE TABLE IF NOT EXISTS "+chDist(r)+" ("+chRollupDefs(r)+") ENGINE = Distributed("+
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
