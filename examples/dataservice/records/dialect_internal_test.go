package records

import "strconv"

// The planner's tests compile for the dialects and rollups of the two engines. These are
// copies of records/duckdb's duckDialect and duckRollups and records/clickhouse's chDialect
// (which import this package, so its tests cannot import them); the engines' own tests read
// through the originals (TestRollupsAnswerAsRecords, TestStores).

var duckDialect = &Dialect{
	Types: [...]string{KindInt64: "BIGINT", KindUint8: "UTINYINT", KindUint16: "USMALLINT",
		KindUint32: "UINTEGER", KindUint64: "UBIGINT", KindString: "VARCHAR", KindHist: "UBIGINT[]",
		KindUint32s: "UINTEGER[]", KindStrings: "VARCHAR[]"},
	Param: func(b *SQLBuilder, v any, k Kind) {
		switch v := v.(type) {
		case uint64:
			if k == KindUint64 {
				b.WriteString("CAST(? AS UBIGINT)")
				b.Args = append(b.Args, strconv.FormatUint(v, 10))
				return
			}
			b.WriteString("CAST(? AS " + b.d.Types[k] + ")")
			b.Args = append(b.Args, int64(v))
		default:
			b.WriteString("?")
			b.Args = append(b.Args, v)
		}
	},
	Sum:          duckSum,
	Count:        "CAST(COUNT(*) AS UBIGINT)",
	CountSum:     duckSum,
	Partial:      duckSum,
	Widen:        func(col string) string { return col },
	Hist:         func(col string) string { return "flatten(list(" + col + "))" },
	SumType:      "UBIGINT",
	Bucket:       func(expr string) string { return expr },
	GroupingSets: true,
}

func duckSum(col string) string {
	return "CAST(LEAST(COALESCE(SUM(" + col + "), 0), " + MaxSumSQL + ") AS UBIGINT)"
}

var duckHostKeys = []Column{ColProtocol, ColApplication, ColServerPort, ColServerIP, ColClientIP}

var duckRollups = []Rollup{
	{Table: "records_minute", Width: 60, Keys: []Column{ColProtocol, ColApplication, ColServerPort}},
	{Table: "records_hour", Width: 3600, Keys: []Column{ColProtocol, ColApplication, ColServerPort}},
	{Table: "records_hour_hosts", Width: 3600, Keys: duckHostKeys, Background: true},
	{Table: "records_10min_hosts", Width: 600, Keys: duckHostKeys, Background: true},
}

var chDialect = &Dialect{
	Types: [...]string{KindInt64: "Int64", KindUint8: "UInt8", KindUint16: "UInt16",
		KindUint32: "UInt32", KindUint64: "UInt64", KindString: "String", KindHist: "Array(UInt64)",
		KindUint32s: "Array(UInt32)", KindStrings: "Array(String)"},
	Param: func(b *SQLBuilder, v any, _ Kind) {
		b.WriteString("?")
		b.Args = append(b.Args, v)
	},
	Sum: func(col string) string {
		return "toUInt64(least(sum(toDecimal128(" + col + ", 0)), toDecimal128('" + MaxSumSQL + "', 0)))"
	},
	Count:    "toUInt64(count())",
	CountSum: func(col string) string { return "toUInt64(sum(" + col + "))" },
	Partial:  func(col string) string { return "sum(toDecimal128(" + col + ", 0))" },
	Widen:    func(col string) string { return "toDecimal128(" + col + ", 0)" },
	SumType:  "Decimal(38, 0)",
	Bucket:   func(expr string) string { return "toInt64(" + expr + ")" },
}
