package pvql

import (
	"slices"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// compile turns st into the store-neutral query of its group sums; maxGroups bounds the rows
// read (0: no bound). The store then compiles that to its own SQL: expressions never reach
// it, only columns, sums and typed values.
func compile(st *Statement, maxGroups int) *records.Query {
	q := &records.Query{Sums: neededSums(st), Hists: neededHists(st), Layer: layers[st.layer].layer}
	for _, k := range st.keys {
		g := records.Group{Column: keyKinds[k.kind].column}
		if k.kind == kTime {
			g.Bucket = k.n
		}
		q.Groups = append(q.Groups, g)
		for _, c := range keyKinds[k.kind].extra {
			q.Groups = append(q.Groups, records.Group{Column: c})
		}
	}
	var where []records.Cond
	if p := layers[st.layer].protocol; p >= 0 {
		where = append(where, records.Compare{Column: records.ColProtocol, Op: records.Eq, Value: records.Value{Lo: uint64(p)}})
	}
	if st.where != nil {
		where = append(where, cond(st.where))
	}
	switch len(where) {
	case 1:
		q.Where = where[0]
	case 2:
		q.Where = records.And(where)
	}
	if maxGroups > 0 && len(q.Groups) > 0 {
		q.Limit = maxGroups + 1
	}
	return q
}

// neededSums lists the base sums the values and HAVING use, in sum order; at least one.
func neededSums(st *Statement) []records.Sum {
	var need [records.NumSums]bool
	for _, v := range st.values {
		markSums(v.x, &need)
	}
	walkValueFilters(st.having, func(vf *valueFilter) { markSums(vf.x, &need) })
	var out []records.Sum
	for s, ok := range need {
		if ok {
			out = append(out, records.Sum(s))
		}
	}
	if len(out) == 0 {
		out = []records.Sum{records.SumRecords}
	}
	return out
}

func markSums(x expr, need *[records.NumSums]bool) {
	switch x := x.(type) {
	case metric:
		for _, s := range metrics[x].sums {
			need[s] = true
		}
	case *binaryExpr:
		markSums(x.l, need)
		markSums(x.r, need)
	case *baselineExpr:
		markSums(x.x, need)
	case extremeExpr:
		need[x] = true
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

// recordOps maps the language's comparison operators to the store's.
var recordOps = [...]records.Op{opEq: records.Eq, opNe: records.Ne, opLt: records.Lt,
	opLe: records.Le, opGt: records.Gt, opGe: records.Ge}

// cond turns a WHERE condition into the store's. An address IN list is a union of ranges (an
// address is the range of itself, a CIDR its block).
func cond(f filter) records.Cond {
	switch f := f.(type) {
	case *andFilter:
		return records.And(conds(f.terms))
	case *orFilter:
		return records.Or(conds(f.terms))
	case *notFilter:
		return records.Not{Cond: cond(f.x)}
	case *fieldFilter:
		col := keyKinds[f.field].column
		if slices.ContainsFunc(f.lits, func(l literal) bool { return l.nested }) {
			return zoneCond(col, f.lits)
		}
		switch {
		case f.op != opIn:
			return records.Compare{Column: col, Op: recordOps[f.op], Value: f.lits[0].from}
		case col.Kind() == records.KindAddr:
			out := make(records.Or, len(f.lits))
			for i, l := range f.lits {
				out[i] = records.Range{Column: col, From: l.from, To: l.to}
			}
			return out
		}
		in := records.In{Column: col}
		for _, l := range f.lits {
			in.Values = append(in.Values, l.from)
		}
		return in
	}
	return nil
}

// zoneCond is the condition of a zone's = or IN with literals some of which are prefixes: the
// zone itself, or for a prefix "Customers/" also the range of names under it, from
// "Customers/" to "Customers/" followed by the greatest character, U+10FFFF, 64 times (256
// bytes, more than netctx.MaxNameLength, the longest name; names are valid UTF-8, which
// compares byte by byte as characters do, so every name starting with the prefix lies within).
func zoneCond(col records.Column, lits []literal) records.Cond {
	var out records.Or
	for _, l := range lits {
		out = append(out, records.Compare{Column: col, Op: records.Eq, Value: l.from})
		if l.nested {
			p := l.from.Str + "/"
			out = append(out, records.Range{Column: col, From: records.Value{Str: p},
				To: records.Value{Str: p + strings.Repeat("\U0010FFFF", 64)}})
		}
	}
	return out
}

func conds(fs []filter) []records.Cond {
	out := make([]records.Cond, len(fs))
	for i, f := range fs {
		out[i] = cond(f)
	}
	return out
}
