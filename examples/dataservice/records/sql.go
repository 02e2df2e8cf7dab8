package records

import (
	"strconv"
	"strings"
)

// Dialect is what differs between the SQL of two stores; everything else about a query's SQL
// is built once, in compile.
type Dialect struct {
	// Types names each kind's SQL type.
	Types [KindAddr]string
	// Param writes a parameter of kind k holding v (int64, uint64 or string) and appends its
	// argument.
	Param func(b *SQLBuilder, v any, k Kind)
	// Sum is the sum of a column of counts (bytes, packets), saturated at MaxSum (sum.go) and
	// read as UInt64; count is the record count, and countSum the sum of a column of record
	// counts (a union's branches'), read as UInt64: no table holds 2^64 records.
	Sum      func(col string) string
	Count    string
	CountSum func(col string) string
	// Partial is the sum of a column of counts as a union's branch over the records gives it
	// (plan_union.go) and a rollup keeps it: of type sumType, wide enough or saturated so that
	// adding it up in sum never fails nor wraps. widen is a record's column of counts as a
	// union's branch over the records gives it ungrouped, of type sumType too: ClickHouse 18.16
	// fails to convert a union of UInt64 and Decimal branches ("Illegal column UInt64").
	Partial func(col string) string
	Widen   func(col string) string
	// Extreme is the least non-zero value of a column of a group (0 when none is), or with max
	// its greatest, read as UInt64 (Sum.Extreme).
	Extreme func(col string, max bool) string
	// Hist merges a histogram column (KindHist) of a group into one array of its entries
	// (hist.go), in no order and with an index maybe several times: what a union's branch over
	// the records gives and what the select over the branches reads.
	Hist func(col string) string
	// HistBranch, when not nil, is how a union's branch over the records or over a rollup
	// gives histogram column col: one or more columns, which HistUnion merges in the select
	// over the branches, in place of Hist, into one value the reader adds up (Plan.emit). ClickHouse's branches
	// give a histogram's indexes and counts apart, so that a rollup's maps are read as it keeps
	// them rather than made into entries and taken apart again (2.5 times as fast, BENCHMARKS.md).
	// Its arguments are the column, the rollup of the branch (nil over the records) and
	// whether the branch over the records groups its rows (several key sets).
	HistBranch func(col string, r *Rollup, grouped bool) string
	HistUnion  func(col string) string
	// BytesType is the type of a column of bytes: a rollup's histograms with HistBytes.
	BytesType string
	SumType   string
	// Bucket wraps the time bucket expression so it reads as Int64.
	Bucket func(expr string) string
	// GroupingSets is true when one SELECT may group by several sets of keys (GROUP BY
	// GROUPING SETS with GROUPING()); without, queries of other keys are read one after another.
	GroupingSets bool
	// ContextFrom, when not empty, is the FROM source (a parenthesised SELECT with an alias)
	// that gives the records with their context columns (Column.Context), for a store that
	// keeps the context apart from the records table: a plan reads it in place of the table
	// when its keys or its condition use a context column, and the table otherwise.
	ContextFrom string
	// ContextNumber, when not empty, is the records' column that holds a record's context
	// number, for a store that names the numbers itself (ContextNames): a plan whose keys use
	// a context column but whose condition does not, and which reads rollups, reads the
	// records' branches (the edges of its period) by that number instead of through
	// ContextFrom, and Scan names them. DuckDB's join of a few records to their contexts cost
	// a fixed 2-3 ms, as much as the rest of such a query (BENCHMARKS.md, issue 25).
	ContextNumber string
	// Has is the condition that list column col (KindUint32s, KindStrings) holds the value
	// param (a parameter's SQL), and ListText the text of the list, as a query groups by it
	// (Column.ListText).
	Has      func(col, param string) string
	ListText func(col string, k Kind) string
}

// SQLBuilder accumulates SQL text and its arguments in order.
type SQLBuilder struct {
	strings.Builder
	Args []any
	d    *Dialect
}

var sqlOps = [...]string{Eq: "=", Ne: "<>", Lt: "<", Le: "<=", Gt: ">", Ge: ">="}

// value writes v as a parameter of column c's kind; an address's half is a KindUint64.
func (b *SQLBuilder) value(c Column, v Value) {
	switch k := c.Kind(); k {
	case KindString, KindStrings:
		b.d.Param(b, v.Str, KindString)
	case KindUint32s:
		b.d.Param(b, v.Lo, KindUint32)
	case KindInt64:
		b.d.Param(b, int64(v.Lo), k)
	default:
		b.d.Param(b, v.Lo, k)
	}
}

func (b *SQLBuilder) half(v uint64) { b.d.Param(b, v, KindUint64) }

// cond writes a condition.
func (b *SQLBuilder) cond(c Cond) {
	switch c := c.(type) {
	case And:
		b.join(c, " AND ")
	case Or:
		b.join(c, " OR ")
	case Not:
		b.WriteString("(NOT ")
		b.cond(c.Cond)
		b.WriteString(")")
	case Compare:
		if c.Column.List() {
			b.listCompare(c)
			return
		}
		if c.Column.Kind() == KindAddr {
			b.addrCompare(c.Column, c.Op, c.Value)
			return
		}
		b.WriteString("(" + c.Column.Name() + " " + sqlOps[c.Op] + " ")
		b.value(c.Column, c.Value)
		b.WriteString(")")
	case Range:
		if c.Column.Kind() == KindAddr {
			b.addrRange(c.Column, c.From, c.To)
			return
		}
		b.WriteString("(" + c.Column.Name() + " BETWEEN ")
		b.value(c.Column, c.From)
		b.WriteString(" AND ")
		b.value(c.Column, c.To)
		b.WriteString(")")
	case In:
		if c.Column.List() {
			or := make(Or, len(c.Values))
			for i, v := range c.Values {
				or[i] = Compare{Column: c.Column, Op: Eq, Value: v}
			}
			b.cond(or)
			return
		}
		b.WriteString("(" + c.Column.Name() + " IN (")
		for i, v := range c.Values {
			if i > 0 {
				b.WriteString(", ")
			}
			b.value(c.Column, v)
		}
		b.WriteString("))")
	}
}

// listCompare writes a condition on a list column: = holds when the list has the value (an
// AS in the path, a community among the route's), <> when it has not; the zero value (AS 0,
// the empty string: null in the query language) stands for the empty list. Other operators
// compare nothing: the query language refuses them.
func (b *SQLBuilder) listCompare(c Compare) {
	var cond string
	if c.Value.Lo == 0 && c.Value.Str == "" {
		cond = "(length(" + c.Column.Name() + ") = 0)"
	} else {
		var p SQLBuilder
		p.d = b.d
		p.value(c.Column, c.Value)
		b.Args = append(b.Args, p.Args...)
		cond = b.d.Has(c.Column.Name(), p.String())
	}
	if c.Op == Ne {
		cond = "(NOT " + cond + ")"
	}
	b.WriteString(cond)
}

func (b *SQLBuilder) join(terms []Cond, sep string) {
	b.WriteString("(")
	for i, t := range terms {
		if i > 0 {
			b.WriteString(sep)
		}
		b.cond(t)
	}
	b.WriteString(")")
}

// addrRange writes from <= (hi, lo) <= to.
func (b *SQLBuilder) addrRange(c Column, from, to Value) {
	names := c.SQLNames()
	hi, lo := names[0], names[1]
	if from.Hi == to.Hi {
		b.WriteString("(" + hi + " = ")
		b.half(from.Hi)
		if from.Lo == to.Lo {
			b.WriteString(" AND " + lo + " = ")
			b.half(from.Lo)
		} else {
			b.WriteString(" AND " + lo + " BETWEEN ")
			b.half(from.Lo)
			b.WriteString(" AND ")
			b.half(to.Lo)
		}
		b.WriteString(")")
		return
	}
	b.WriteString("(")
	b.addrCompare(c, Ge, from)
	b.WriteString(" AND ")
	b.addrCompare(c, Le, to)
	b.WriteString(")")
}

// addrCompare writes (hi, lo) op a, comparing the halves lexicographically; = and <> compare
// both halves.
func (b *SQLBuilder) addrCompare(c Column, o Op, a Value) {
	switch o {
	case Eq:
		b.addrRange(c, a, a)
		return
	case Ne:
		b.WriteString("(NOT ")
		b.addrRange(c, a, a)
		b.WriteString(")")
		return
	}
	names := c.SQLNames()
	hi, lo := names[0], names[1]
	strict := sqlOps[Lt]
	if o == Gt || o == Ge {
		strict = sqlOps[Gt]
	}
	b.WriteString("(" + hi + " " + strict + " ")
	b.half(a.Hi)
	b.WriteString(" OR (" + hi + " = ")
	b.half(a.Hi)
	b.WriteString(" AND " + lo + " " + sqlOps[o] + " ")
	b.half(a.Lo)
	b.WriteString("))")
}

// ToUint64 converts an integer column value; NULL is 0. Signed values keep their two's
// complement bits, which int64(...) restores.
func ToUint64(v any) uint64 {
	switch v := v.(type) {
	case uint64:
		return v
	case int64:
		return uint64(v)
	case uint32:
		return uint64(v)
	case int32:
		return uint64(v)
	case uint16:
		return uint64(v)
	case int16:
		return uint64(v)
	case uint8:
		return uint64(v)
	case int8:
		return uint64(v)
	case *uint64:
		return *v
	case *int64:
		return uint64(*v)
	case *uint32:
		return uint64(*v)
	case *uint16:
		return uint64(*v)
	case *uint8:
		return uint64(*v)
	}
	return 0
}

// TimeRange is the condition from <= time < to with the bounds as literals, which DuckDB skips
// a table's row groups by (with parameters it reads them all; plan_bind.go's LiteralTimes does
// the same for a plan's branches). The bounds are times the store computed, never a caller's
// text.
func TimeRange(from, to int64) string {
	return "time >= " + strconv.FormatInt(from, 10) + " AND time < " + strconv.FormatInt(to, 10)
}
