package duckdb

import (
	"strconv"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// duckTypes names each kind's DuckDB type.
var duckTypes = [...]string{records.KindInt64: "BIGINT", records.KindUint8: "UTINYINT", records.KindUint16: "USMALLINT",
	records.KindUint32: "UINTEGER", records.KindUint64: "UBIGINT", records.KindString: "VARCHAR",
	records.KindHist: "UBIGINT[]", records.KindUint32s: "UINTEGER[]", records.KindStrings: "VARCHAR[]"}

// The DuckDB dialect. Unsigned parameters go as text cast to UBIGINT, because database/sql does
// not pass uint64 values above math.MaxInt64; the other typed parameters are cast to their
// column's type so comparisons stay in it.
var duckDialect = &records.Dialect{
	Types: duckTypes,
	Param: func(b *records.SQLBuilder, v any, k records.Kind) {
		switch v := v.(type) {
		case uint64:
			if k == records.KindUint64 {
				b.WriteString("CAST(? AS UBIGINT)")
				b.Args = append(b.Args, strconv.FormatUint(v, 10))
				return
			}
			b.WriteString("CAST(? AS " + duckTypes[k] + ")")
			b.Args = append(b.Args, int64(v))
		default:
			b.WriteString("?")
			b.Args = append(b.Args, v)
		}
	},
	// DuckDB sums a UBIGINT column into a HUGEINT (128 bits), which holds the sum of any number
	// of records exactly; LEAST saturates it, where a plain cast to UBIGINT failed the query.
	Sum:           duckSum,
	Count:         "CAST(COUNT(*) AS UBIGINT)",
	CountSum:      duckSum,
	Partial:       duckSum,
	Widen:         func(col string) string { return col },
	Extreme:       duckExtreme,
	Hist:          duckHist,
	HistBranch:    duckHistBranch,
	HistUnion:     duckHistUnion,
	BytesType:     "BLOB",
	SumType:       "UBIGINT",
	Bucket:        func(expr string) string { return expr },
	GroupingSets:  true,
	ContextFrom:   contextFrom,
	ContextNumber: "context",
	Has:           func(col, param string) string { return "list_contains(" + col + ", " + param + ")" },
	ListText: func(col string, _ records.Kind) string {
		return "array_to_string(" + col + ", '" + records.ListSep + "')"
	},
}

// duckHist gives a group's histogram entries (records/hist.go) as one list, which the reader
// adds up by bucket (records.Plan). A percentile pays for its entries: DuckDB reads a list
// column a vector (2,048 rows) at a time, every entry of the rows its time filter touches, and
// the driver hands each entry kept over boxed in an any; the rollups ForHists (rollups.go) keep
// them fewer. Adding them up in SQL first (unnest, then a GROUP BY of group and index) cost as
// much as the list, handing each group's over as text (array_to_string, a cast to VARCHAR)
// more, and the transport's rollups' histograms kept in other forms (a BLOB a row, a row an
// entry) saved a tenth at most (BENCHMARKS.md, "Percentiles within 1.5x of traffic?"); the
// HTTP layer's, whose rows hold more entries, keep bytes (duckHistBranch).
func duckHist(col string) string { return "flatten(list(" + col + "))" }

// duckHistBranch gives histogram column col in a union's branch over rollup r (nil: the
// records, whose rows it merges when grouped) as two columns: col, an array of entries, and
// col_bytes, a histogram as bytes (records.AppendHistBytes), NULL in the branches that give the
// other. duckHistUnion makes them one STRUCT a group, the branches' entries flattened into one
// list (duckHist) and their bytes listed, which the reader adds up: a rollup with HistBytes
// hands the driver one value a row, not one boxed value an entry.
func duckHistBranch(col string, r *records.Rollup, grouped bool) string {
	entries, bytes := col, "CAST(NULL AS BLOB)"
	switch {
	case r != nil && r.HistBytes:
		entries, bytes = "CAST(NULL AS UBIGINT[])", r.Table+"."+col
	case grouped:
		entries = duckHist(col)
	}
	return entries + " AS " + col + ", " + bytes + " AS " + col + "_bytes"
}

func duckHistUnion(col string) string {
	return "{'e': " + duckHist(col) + ", 'b': list(" + col + "_bytes) FILTER (WHERE " + col + "_bytes IS NOT NULL)}"
}

// duckExtreme is the least non-zero value of col (0 when none is), or its greatest, as a
// UBIGINT.
func duckExtreme(col string, max bool) string {
	if max {
		return "CAST(COALESCE(MAX(" + col + "), 0) AS UBIGINT)"
	}
	return "CAST(COALESCE(MIN(NULLIF(" + col + ", 0)), 0) AS UBIGINT)"
}

// duckSum is the sum of col, saturated at MaxSum, as a UBIGINT.
func duckSum(col string) string {
	return "CAST(LEAST(COALESCE(SUM(" + col + "), 0), " + records.MaxSumSQL + ") AS UBIGINT)"
}

// duckSchema is the DuckDB table that holds the records, one row per conversation and time
// slice, made from the columns table.
func duckSchema() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS records (")
	names, kinds := duckColumns()
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n + " " + duckDialect.Types[kinds[i]] + " NOT NULL DEFAULT " + zeroOf(kinds[i]))
	}
	b.WriteString(")")
	return b.String()
}

// duckMigrations adds to a table made by an earlier version the columns it lacks (the
// collector's exporter and interfaces), holding zero for the rows it has. DuckDB cannot add a
// NOT NULL column, so added ones are nullable with a default; no row is ever NULL.
func duckMigrations() []string {
	var out []string
	names, kinds := duckColumns()
	for i, n := range names {
		out = append(out, "ALTER TABLE records ADD COLUMN IF NOT EXISTS "+n+" "+duckDialect.Types[kinds[i]]+" DEFAULT "+zeroOf(kinds[i]))
	}
	return out
}

// duckColumns are the columns of the records table as schema steps 1, 2 and 5 make it, with
// their kinds: every SQL column (records.SQLColumns), and last the number of the record's
// context. Steps 11 to 13 then move the context's columns to the contexts table (context.go).
func duckColumns() (names []string, kinds []records.Kind) {
	names, kinds = records.SQLColumns()
	return append(names, "context"), append(kinds, records.KindUint64)
}

func zeroOf(k records.Kind) string {
	switch k {
	case records.KindString:
		return "''"
	case records.KindHist, records.KindUint32s, records.KindStrings:
		return "[]"
	}
	return "0"
}
