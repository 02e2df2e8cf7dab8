package records

import (
	"strconv"
	"strings"
)

// The DuckDB dialect. Unsigned parameters go as text cast to UBIGINT, because database/sql does
// not pass uint64 values above math.MaxInt64; the other typed parameters are cast to their
// column's type so comparisons stay in it.
var duckDialect = &dialect{
	types: [...]string{KindInt64: "BIGINT", KindUint8: "UTINYINT", KindUint16: "USMALLINT",
		KindUint32: "UINTEGER", KindUint64: "UBIGINT", KindString: "VARCHAR"},
	param: func(b *sqlBuilder, v any, k Kind) {
		switch v := v.(type) {
		case uint64:
			if k == KindUint64 {
				b.WriteString("CAST(? AS UBIGINT)")
				b.args = append(b.args, strconv.FormatUint(v, 10))
				return
			}
			b.WriteString("CAST(? AS " + b.d.types[k] + ")")
			b.args = append(b.args, int64(v))
		default:
			b.WriteString("?")
			b.args = append(b.args, v)
		}
	},
	// DuckDB sums a UBIGINT column into a HUGEINT (128 bits), which holds the sum of any number
	// of records exactly; LEAST saturates it, where a plain cast to UBIGINT failed the query.
	sum:          duckSum,
	count:        "CAST(COUNT(*) AS UBIGINT)",
	countSum:     duckSum,
	partial:      duckSum,
	widen:        func(col string) string { return col },
	sumType:      "UBIGINT",
	bucket:       func(expr string) string { return expr },
	groupingSets: true,
}

// duckSum is the sum of col, saturated at MaxSum, as a UBIGINT.
func duckSum(col string) string {
	return "CAST(LEAST(COALESCE(SUM(" + col + "), 0), " + maxSumSQL + ") AS UBIGINT)"
}

// duckSchema is the DuckDB table that holds the records, one row per conversation and time
// slice, made from the columns table.
func duckSchema() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS records (")
	names, kinds := sqlColumns()
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n + " " + duckDialect.types[kinds[i]] + " NOT NULL")
	}
	b.WriteString(")")
	return b.String()
}

// duckMigrations adds to a table made by an earlier version the columns it lacks (the
// collector's exporter and interfaces), holding zero for the rows it has. DuckDB cannot add a
// NOT NULL column, so added ones are nullable with a default; no row is ever NULL.
func duckMigrations() []string {
	var out []string
	names, kinds := sqlColumns()
	for i, n := range names {
		out = append(out, "ALTER TABLE records ADD COLUMN IF NOT EXISTS "+n+" "+duckDialect.types[kinds[i]]+" DEFAULT "+zeroOf(kinds[i]))
	}
	return out
}

func zeroOf(k Kind) string {
	if k == KindString {
		return "''"
	}
	return "0"
}
