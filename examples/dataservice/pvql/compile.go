package pvql

import (
	"strconv"
	"strings"
)

// plan is a statement compiled to one parameterised SQL query. The query returns one row per
// group: the key columns (two for an address), then the sums. args[sinceArg] and
// args[sinceArg+1] are the period's bounds, set for each execution.
type plan struct {
	query    string
	args     []any
	sinceArg int
	keys     []key
	sums     []sum
}

// sqlBuilder accumulates SQL text and its parameters in order.
type sqlBuilder struct {
	strings.Builder
	args []any
}

// param writes a parameter, cast to the column type typ when typ is not empty.
func (b *sqlBuilder) param(v any, typ string) {
	if typ == "" {
		b.WriteString("?")
	} else {
		b.WriteString("CAST(? AS " + typ + ")")
	}
	b.args = append(b.args, v)
}

// uparam writes an unsigned 64-bit parameter; it is passed as text because database/sql
// does not pass uint64 values above math.MaxInt64.
func (b *sqlBuilder) uparam(v uint64) {
	b.param(strconv.FormatUint(v, 10), "UBIGINT")
}

// columns of a key or WHERE field: the address fields have two.
var fieldColumns = [...][]string{
	kClientIP:    {"client_ip_hi", "client_ip_lo"},
	kServerIP:    {"server_ip_hi", "server_ip_lo"},
	kClientPort:  {"client_port"},
	kServerPort:  {"server_port"},
	kProtocol:    {"protocol"},
	kApplication: {"application"},
}

var fieldType = [...]string{kClientPort: "USMALLINT", kServerPort: "USMALLINT", kProtocol: "UTINYINT", kApplication: ""}

// compile turns st into its SQL query; maxGroups bounds the rows read (0: no bound).
func compile(st *Statement, maxGroups int) plan {
	var b sqlBuilder
	pl := plan{keys: st.keys, sums: neededSums(st)}
	b.WriteString("SELECT ")
	cols := 0
	for _, k := range st.keys {
		if k.kind == kTime {
			// The point T (a multiple of N) covering time is time - mod(time, N) + N, with mod
			// written to stay non-negative for times before 1970.
			b.WriteString("time - ((time % ")
			b.param(k.n, "")
			b.WriteString(") + ")
			b.param(k.n, "")
			b.WriteString(") % ")
			b.param(k.n, "")
			b.WriteString(" + ")
			b.param(k.n, "")
			b.WriteString(", ")
			cols++
			continue
		}
		for _, c := range fieldColumns[k.kind] {
			b.WriteString(c + ", ")
			cols++
		}
	}
	for i, s := range pl.sums {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(sumSQL[s])
	}
	b.WriteString(" FROM records WHERE time >= ")
	pl.sinceArg = len(b.args)
	b.param(int64(0), "")
	b.WriteString(" AND time < ")
	b.param(int64(0), "")
	if p := layers[st.layer].protocol; p >= 0 {
		b.WriteString(" AND protocol = ")
		b.param(p, "UTINYINT")
	}
	if st.where != nil {
		b.WriteString(" AND ")
		b.filter(st.where)
	}
	if cols > 0 {
		b.WriteString(" GROUP BY ")
		for i := 1; i <= cols; i++ {
			if i > 1 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(i))
		}
		if maxGroups > 0 {
			b.WriteString(" LIMIT ")
			b.param(int64(maxGroups)+1, "")
		}
	}
	pl.query, pl.args = b.String(), b.args
	return pl
}

// neededSums lists the base sums the values and HAVING use, in sum order; at least one.
func neededSums(st *Statement) []sum {
	var need [numSums]bool
	for _, v := range st.values {
		markSums(v.x, &need)
	}
	walkValueFilters(st.having, func(vf *valueFilter) { markSums(vf.x, &need) })
	var out []sum
	for s, ok := range need {
		if ok {
			out = append(out, sum(s))
		}
	}
	if len(out) == 0 {
		out = []sum{sRecords}
	}
	return out
}

func markSums(x expr, need *[numSums]bool) {
	switch x := x.(type) {
	case metric:
		for _, s := range metrics[x].sums {
			need[s] = true
		}
	case *binaryExpr:
		markSums(x.l, need)
		markSums(x.r, need)
	}
}

func walkValueFilters(f filter, fn func(*valueFilter)) {
	switch f := f.(type) {
	case *andFilter:
		for _, t := range f.terms {
			walkValueFilters(t, fn)
		}
	case *orFilter:
		for _, t := range f.terms {
			walkValueFilters(t, fn)
		}
	case *notFilter:
		walkValueFilters(f.x, fn)
	case *valueFilter:
		fn(f)
	}
}

// filter writes a WHERE condition.
func (b *sqlBuilder) filter(f filter) {
	switch f := f.(type) {
	case *andFilter:
		b.join(f.terms, " AND ")
	case *orFilter:
		b.join(f.terms, " OR ")
	case *notFilter:
		b.WriteString("(NOT ")
		b.filter(f.x)
		b.WriteString(")")
	case *fieldFilter:
		if f.field == kClientIP || f.field == kServerIP {
			b.addrFilter(f)
		} else {
			b.scalarFilter(f)
		}
	}
}

func (b *sqlBuilder) join(terms []filter, sep string) {
	b.WriteString("(")
	for i, t := range terms {
		if i > 0 {
			b.WriteString(sep)
		}
		b.filter(t)
	}
	b.WriteString(")")
}

func (b *sqlBuilder) scalarFilter(f *fieldFilter) {
	col, typ := fieldColumns[f.field][0], fieldType[f.field]
	lit := func(l literal) {
		if f.field == kApplication {
			b.param(l.s, "")
		} else {
			b.param(l.n, typ)
		}
	}
	b.WriteString("(" + col)
	if f.op != opIn {
		b.WriteString(" " + opSQL[f.op] + " ")
		lit(f.lits[0])
		b.WriteString(")")
		return
	}
	b.WriteString(" IN (")
	for i, l := range f.lits {
		if i > 0 {
			b.WriteString(", ")
		}
		lit(l)
	}
	b.WriteString("))")
}

// addrFilter compares the two 64-bit halves of an address column pair lexicographically.
func (b *sqlBuilder) addrFilter(f *fieldFilter) {
	hi, lo := fieldColumns[f.field][0], fieldColumns[f.field][1]
	if f.op != opIn {
		a := f.lits[0].lo
		switch f.op {
		case opEq:
			b.addrRange(hi, lo, a, a)
		case opNe:
			b.WriteString("(NOT ")
			b.addrRange(hi, lo, a, a)
			b.WriteString(")")
		default:
			b.addrCompare(hi, lo, f.op, a)
		}
		return
	}
	b.WriteString("(")
	for i, l := range f.lits {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.addrRange(hi, lo, l.lo, l.hi)
	}
	b.WriteString(")")
}

// addrRange writes from <= (hi, lo) <= to.
func (b *sqlBuilder) addrRange(hi, lo string, from, to addr128) {
	if from.hi == to.hi {
		b.WriteString("(" + hi + " = ")
		b.uparam(from.hi)
		if from.lo == to.lo {
			b.WriteString(" AND " + lo + " = ")
			b.uparam(from.lo)
		} else {
			b.WriteString(" AND " + lo + " BETWEEN ")
			b.uparam(from.lo)
			b.WriteString(" AND ")
			b.uparam(to.lo)
		}
		b.WriteString(")")
		return
	}
	b.WriteString("(")
	b.addrCompare(hi, lo, opGe, from)
	b.WriteString(" AND ")
	b.addrCompare(hi, lo, opLe, to)
	b.WriteString(")")
}

// addrCompare writes (hi, lo) op a for op one of <, <=, >, >=.
func (b *sqlBuilder) addrCompare(hi, lo string, o op, a addr128) {
	strict := opSQL[opLt]
	if o == opGt || o == opGe {
		strict = opSQL[opGt]
	}
	b.WriteString("(" + hi + " " + strict + " ")
	b.uparam(a.hi)
	b.WriteString(" OR (" + hi + " = ")
	b.uparam(a.hi)
	b.WriteString(" AND " + lo + " " + opSQL[o] + " ")
	b.uparam(a.lo)
	b.WriteString("))")
}
