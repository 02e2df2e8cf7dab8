package records

import (
	"slices"
	"strconv"
	"strings"
)

// selectKeys writes the key columns of every set, each distinct key once, gives p a planSet
// of each set with the first column of each of its keys, and returns the columns' aliases.
func (p *Plan) selectKeys(b *SQLBuilder, qs []*Query, sets [][]int) []string {
	var aliases []string
	colOf := map[Group]int{} // the first selected column of each distinct key
	for _, s := range sets {
		ps := planSet{groups: qs[s[0]].Groups}
		for _, g := range ps.groups {
			c, ok := colOf[g]
			if !ok {
				c = len(p.keyCols)
				colOf[g] = c
				aliases = p.selectKey(b, aliases, g)
			}
			ps.cols = append(ps.cols, c)
		}
		p.sets = append(p.sets, ps)
	}
	return aliases
}

// selectSums writes a column for each sum the queries of sets read, in the order of Sum, and
// returns the column of each sum, -1 for those not read. union says whether the rows come
// summed from a union's branches, whose record counts are then added (Dialect.CountSum).
func (p *Plan) selectSums(b *SQLBuilder, qs []*Query, sets [][]int, union bool) [NumSums]int {
	count := b.d.Count
	if union {
		count = b.d.CountSum("records") // of a union's branches (from)
	}
	var sumCol [NumSums]int
	for s := range NumSums {
		sumCol[s] = -1
	}
	for _, s := range sets {
		for _, i := range s {
			for _, sum := range qs[i].Sums {
				sumCol[sum] = 0
			}
		}
	}
	for s, c := range sumCol {
		if c < 0 {
			continue
		}
		if p.sums > 0 {
			b.WriteString(", ")
		}
		sumCol[s] = len(p.keyCols) + p.sums
		p.sums++
		if ext, max := Sum(s).Extreme(); ext {
			b.WriteString(b.d.Extreme(sumColumn[s].Name(), max))
		} else if col := sumColumn[s]; col >= 0 {
			b.WriteString(b.d.Sum(col.Name()))
		} else {
			b.WriteString(count)
		}
	}
	return sumCol
}

// selectHists writes a column for each histogram the queries of sets read, in the order of
// Column, and returns the column of each. union says whether the rows come from a union's
// branches, whose histograms are then merged (Dialect.HistUnion, when the dialect has one).
func (p *Plan) selectHists(b *SQLBuilder, qs []*Query, sets [][]int, union bool) map[Column]int {
	histCol := map[Column]int{}
	for col := range NumColumns {
		if !slices.ContainsFunc(sets, func(s []int) bool {
			return slices.ContainsFunc(s, func(i int) bool { return slices.Contains(qs[i].Hists, col) })
		}) {
			continue
		}
		histCol[col] = len(p.keyCols) + p.sums + p.hists
		p.hists++
		if b.d.HistUnion != nil && union {
			b.WriteString(", " + b.d.HistUnion(col.Name()))
		} else {
			b.WriteString(", " + b.d.Hist(col.Name()))
		}
	}
	return histCol
}

// selectSetAndNumber writes the GROUPING() column of a plan of several sets and the context
// number column of a numbered one, and returns that column's name ("" when not numbered).
func (p *Plan) selectSetAndNumber(b *SQLBuilder, aliases []string) string {
	if p.setCol {
		b.WriteString(", GROUPING(" + strings.Join(aliases, ", ") + ")")
	}
	if !p.numbered {
		return ""
	}
	b.WriteString(", " + b.d.ContextNumber)
	return b.d.ContextNumber
}

// groupBy writes the plan's GROUP BY: by grouping sets with several sets, by the keys and the
// context number column (number) when numbered, else by the keys, with limit, the set's LIMIT
// (0: none).
func (p *Plan) groupBy(b *SQLBuilder, aliases []string, number string, limit int) {
	switch {
	case p.setCol:
		p.groupingSets(b, aliases, number)
	case p.numbered:
		// No LIMIT: a group may come in a row of the rollups and rows of the records by
		// context number, so that a limit on rows could cut some of a group's rows while its
		// groups were within it. The rows are those of the rollups' groups and of the
		// records at the period's edges (by context); the reader bounds the groups it merges
		// (Query.Limit).
		b.WriteString(" GROUP BY " + strings.Join(append(aliases, number), ", "))
	case len(aliases) > 0:
		b.WriteString(" GROUP BY " + strings.Join(aliases, ", "))
		if limit > 0 {
			b.WriteString(" LIMIT " + strconv.Itoa(limit))
		}
	}
}

// groupingSets writes GROUP BY GROUPING SETS over the plan's sets and maps the GROUPING()
// value of each (a bit per alias, the first the highest, set when the alias is not grouped).
// Sets of the same keys in another order (BY a, b and BY b, a) are one grouping set, whose
// rows answer each of them.
func (p *Plan) groupingSets(b *SQLBuilder, aliases []string, number string) {
	b.WriteString(" GROUP BY GROUPING SETS (")
	p.setOf = map[uint64][]int{}
	for si, s := range p.sets {
		var names []string
		grouped := make([]bool, len(aliases))
		for gi, g := range s.groups {
			for k := range len(g.columns()) {
				grouped[s.cols[gi]+k] = true
				names = append(names, aliases[s.cols[gi]+k])
			}
		}
		var mask uint64
		for i, g := range grouped {
			if !g {
				mask |= 1 << (len(aliases) - 1 - i)
			}
		}
		if number != "" {
			names = append(names, number)
		}
		if len(p.setOf[mask]) == 0 {
			if len(p.setOf) > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(" + strings.Join(names, ", ") + ")")
		}
		p.setOf[mask] = append(p.setOf[mask], si)
	}
	b.WriteString(")")
}

// columns returns the SQL columns of the key: one, or two for an address.
func (g Group) columns() []string {
	if g.Bucket > 0 {
		return []string{"time"}
	}
	return g.Column.SQLNames()
}

// BucketStart is the SQL of the first second of the bucket of width w (in decimal) covering
// time: time - time % w, as the modulo of a time is never negative: a store holds no time
// before 1970 (Record.Validate refuses them in every batch). Written to hold for negative
// times too, ((time % w) + w) % w, it cost DuckDB a fifth of a time series' SELECT.
func BucketStart(w string) string { return "time - time % " + w }

// selectKey writes the columns of key g, each as k<i>, the alias GROUP BY names (both dialects
// accept aliases there; positions mean constants in older ClickHouse).
func (p *Plan) selectKey(b *SQLBuilder, aliases []string, g Group) []string {
	as := func(expr string, k Kind) {
		a := "k" + strconv.Itoa(len(aliases))
		b.WriteString(expr + " AS " + a + ", ")
		aliases = append(aliases, a)
		p.keyCols = append(p.keyCols, k)
	}
	if g.Bucket > 0 {
		// The point T (a multiple of N) covering time is the bucket's start + N.
		n := strconv.FormatInt(g.Bucket, 10)
		as(b.d.Bucket(BucketStart(n)+" + "+n), KindInt64)
		return aliases
	}
	k := g.Column.Kind()
	if g.Column.List() {
		as(b.d.ListText(g.Column.Name(), k), KindString)
		return aliases
	}
	if k == KindAddr {
		k = KindUint64
	}
	for _, name := range g.Column.SQLNames() {
		as(name, k)
	}
	return aliases
}
