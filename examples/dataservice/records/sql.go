package records

import (
	"fmt"
	"strconv"
	"strings"
)

// dialect is what differs between the SQL of two stores; everything else about a query's SQL
// is built once, in compile.
type dialect struct {
	// types names each kind's SQL type.
	types [KindAddr]string
	// param writes a parameter of kind k holding v (int64, uint64 or string) and appends its
	// argument.
	param func(b *sqlBuilder, v any, k Kind)
	// sum and count wrap a sum of a column and the record count so they read as UInt64.
	sum   func(col string) string
	count string
	// bucket wraps the time bucket expression so it reads as Int64.
	bucket func(expr string) string
}

// Plan is a Query compiled to one store's SQL: one parameterised query whose rows are the
// groups (key columns, two for an address, then the sums). The period's bounds are its
// arguments sinceArg and sinceArg+1, set for each Read.
type Plan struct {
	query    string
	args     []any
	sinceArg int
	groups   []Group
	keyCols  []Kind // kinds of the selected key columns, an address as two KindUint64
	sums     int
}

// sqlBuilder accumulates SQL text and its arguments in order.
type sqlBuilder struct {
	strings.Builder
	args []any
	d    *dialect
}

var sqlOps = [...]string{Eq: "=", Ne: "<>", Lt: "<", Le: "<=", Gt: ">", Ge: ">="}

// compile builds q's SQL in dialect d over the table named table.
func compile(d *dialect, table string, q *Query) *Plan {
	b := &sqlBuilder{d: d}
	p := &Plan{groups: q.Groups, sums: len(q.Sums)}
	b.WriteString("SELECT ")
	var aliases []string
	for _, g := range q.Groups {
		if g.Bucket > 0 {
			// The point T (a multiple of N) covering time is time - mod(time, N) + N, with mod
			// written to stay non-negative for times before 1970.
			n := strconv.FormatInt(g.Bucket, 10)
			aliases = b.selectAs(aliases, d.bucket("time - ((time % "+n+") + "+n+") % "+n+" + "+n))
			p.keyCols = append(p.keyCols, KindInt64)
			continue
		}
		for _, name := range g.Column.sqlNames() {
			aliases = b.selectAs(aliases, name)
			k := g.Column.Kind()
			if k == KindAddr {
				k = KindUint64
			}
			p.keyCols = append(p.keyCols, k)
		}
	}
	for i, s := range q.Sums {
		if i > 0 {
			b.WriteString(", ")
		}
		if c := sumColumn[s]; c >= 0 {
			b.WriteString(d.sum(c.Name()))
		} else {
			b.WriteString(d.count)
		}
	}
	b.WriteString(" FROM " + table + " WHERE time >= ")
	p.sinceArg = len(b.args)
	d.param(b, int64(0), KindInt64)
	b.WriteString(" AND time < ")
	d.param(b, int64(0), KindInt64)
	if q.Where != nil {
		b.WriteString(" AND ")
		b.cond(q.Where)
	}
	if len(aliases) > 0 {
		b.WriteString(" GROUP BY " + strings.Join(aliases, ", "))
		if q.Limit > 0 {
			b.WriteString(" LIMIT " + strconv.Itoa(q.Limit))
		}
	}
	p.query, p.args = b.String(), b.args
	return p
}

// selectAs writes expr AS k<i>, the alias GROUP BY names (both dialects accept aliases there;
// positions mean constants in older ClickHouse).
func (b *sqlBuilder) selectAs(aliases []string, expr string) []string {
	a := "k" + strconv.Itoa(len(aliases))
	b.WriteString(expr + " AS " + a + ", ")
	return append(aliases, a)
}

// value writes v as a parameter of column c's kind; an address's half is a KindUint64.
func (b *sqlBuilder) value(c Column, v Value) {
	switch k := c.Kind(); k {
	case KindString:
		b.d.param(b, v.Str, k)
	case KindInt64:
		b.d.param(b, int64(v.Lo), k)
	default:
		b.d.param(b, v.Lo, k)
	}
}

func (b *sqlBuilder) half(v uint64) { b.d.param(b, v, KindUint64) }

// cond writes a condition.
func (b *sqlBuilder) cond(c Cond) {
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

func (b *sqlBuilder) join(terms []Cond, sep string) {
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
func (b *sqlBuilder) addrRange(c Column, from, to Value) {
	names := c.sqlNames()
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
func (b *sqlBuilder) addrCompare(c Column, o Op, a Value) {
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
	names := c.sqlNames()
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

// resultRows is what both drivers' query results offer.
type resultRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// scan reads every row of rs into dests, decodes it from vals (dests themselves, or what they
// point to) and calls fn with it.
func (p *Plan) scan(rs resultRows, dests, vals []any, fn func(*Row) error) error {
	var r Row
	for rs.Next() {
		if err := rs.Scan(dests...); err != nil {
			return fmt.Errorf("records: read: %w", err)
		}
		p.decode(vals, &r)
		if err := fn(&r); err != nil {
			return err
		}
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("records: read: %w", err)
	}
	return nil
}

// decode fills r from the values of one result row scanned into vals (keys, then sums).
func (p *Plan) decode(vals []any, r *Row) {
	if len(r.Keys) != len(p.groups) || len(r.Sums) != p.sums {
		r.Keys, r.Sums = make([]Value, len(p.groups)), make([]uint64, p.sums)
	}
	c := 0
	for i, g := range p.groups {
		switch {
		case g.Bucket > 0:
			r.Keys[i] = Value{Lo: toUint64(vals[c])}
		case g.Column.Kind() == KindAddr:
			r.Keys[i] = Value{Hi: toUint64(vals[c]), Lo: toUint64(vals[c+1])}
			c++
		case g.Column.Kind() == KindString:
			switch s := vals[c].(type) {
			case string:
				r.Keys[i] = Value{Str: s}
			case *string:
				r.Keys[i] = Value{Str: *s}
			}
		default:
			r.Keys[i] = Value{Lo: toUint64(vals[c])}
		}
		c++
	}
	for i := range r.Sums {
		r.Sums[i] = toUint64(vals[c+i])
	}
}

// toUint64 converts an integer column value; NULL is 0. Signed values keep their two's
// complement bits, which int64(...) restores.
func toUint64(v any) uint64 {
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
