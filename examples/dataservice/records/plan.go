package records

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Plan is Queries compiled to one store's SQL. Queries with the same Where and rollups share
// one SELECT, one pass over the records (and one over each rollup): its rows are the groups of
// every key set the queries use (key columns, two for an address, then the union of their
// sums, then with several sets the GROUPING() value telling a row's set). Queries with another
// Where or rollups, or of another key set in a store without grouping sets, are other parts.
// A part that reads rollups reads them and the records in one SELECT too, over the union of a
// SELECT per branch: each reads one source (the records, or a rollup) over one range of the
// period (bind).
type Plan struct {
	query string
	args  []any
	// text is query cut at each of its parameters (len(args)+1 pieces), for literalTimes.
	text []string
	// branches are the SELECTs the query unites, one without rollups.
	branches []branch
	// widths are the widths of the rollups the branches read, finest first; levels those
	// rollups.
	widths  []int64
	Levels  []*Rollup
	keyCols []Kind // kinds of the selected key columns, an address as two KindUint64
	sums    int    // sum columns after the key columns
	hists   int    // histogram columns after the sums
	setCol  bool   // a GROUPING() column follows the sums and histograms
	// numbered is true when a context number column (Dialect.ContextNumber) follows the sums
	// and histograms: a row's context keys are then those of that number (not 0) as Scan's
	// ContextNames names it, and a group may come in several rows.
	numbered bool
	sets     []planSet
	setOf    map[uint64][]int // the sets of each GROUPING() value: several when they group by the same keys in other orders
	// parts, when not empty, are the plans this one reads in turn; the fields above are then unused.
	parts []*Plan
}

// branch is one SELECT of a plan's union: it reads source 0, the records, or source i, the
// rollup of widths[i-1], over the range of the period whose bounds are the arguments arg and
// arg+1.
type branch struct {
	source, arg int
	// start and end are the bytes of the query the branch takes in a union, with the
	// unionAll before it but for the first (none when the plan has no union).
	start, end int
}

// planSet is one set of grouping keys and the queries that group by it.
type planSet struct {
	groups  []Group
	cols    []int // the first selected column of each group
	answers []planAnswer
}

// planAnswer is one query answered from a set's rows: the index of its Query and the sum
// column of each of its Sums.
type planAnswer struct {
	query int
	sums  []int
	hists []int
}

// Compile builds the plan of qs in dialect d over the table named table and the rollups that
// answer them. Key sets of one Where and one chain of rollups (chain: at each width, the
// rollup read) are one part, one SELECT over each of its levels and over the records for the
// edges, with grouping sets when the dialect has them and one part per key set otherwise.
func Compile(d *Dialect, table string, rollups []Rollup, qs []*Query) *Plan {
	var byWhere [][]int // indexes of the queries of each distinct Where, in order
	for i, q := range qs {
		j := slices.IndexFunc(byWhere, func(g []int) bool { return reflect.DeepEqual(qs[g[0]].Where, q.Where) })
		if j < 0 {
			byWhere = append(byWhere, nil)
			j = len(byWhere) - 1
		}
		byWhere[j] = append(byWhere[j], i)
	}
	var parts []*Plan
	for _, idx := range byWhere {
		var chains [][]*Rollup
		var passes [][][]int // the key sets of each part
		for _, s := range keySets(qs, idx) {
			// The set's queries share groups and Where, not sums: the chain must hold them all.
			q := *qs[s[0]]
			for _, i := range s[1:] {
				q.Sums = append(slices.Clip(q.Sums), qs[i].Sums...)
				q.Hists = append(slices.Clip(q.Hists), qs[i].Hists...)
			}
			c := Chain(rollups, &q)
			j := slices.IndexFunc(chains, func(o []*Rollup) bool { return slices.Equal(o, c) })
			if j < 0 || !d.GroupingSets {
				chains, passes = append(chains, c), append(passes, nil)
				j = len(chains) - 1
			}
			passes[j] = append(passes[j], s)
		}
		for j, sets := range passes {
			parts = append(parts, compileSets(d, table, chains[j], qs, sets))
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return &Plan{parts: parts}
}

// keySets splits the queries idx into those of equal Groups, in order.
func keySets(qs []*Query, idx []int) [][]int {
	var sets [][]int
	for _, i := range idx {
		j := slices.IndexFunc(sets, func(s []int) bool { return slices.Equal(qs[s[0]].Groups, qs[i].Groups) })
		if j < 0 {
			sets = append(sets, nil)
			j = len(sets) - 1
		}
		sets[j] = append(sets[j], i)
	}
	return sets
}

// compileSets builds one SELECT over table, and the rollups of chain (finest first), answering
// the queries of sets (indexes into qs), which share a Where; each set groups by its own keys.
func compileSets(d *Dialect, table string, Chain []*Rollup, qs []*Query, sets [][]int) *Plan {
	b := &SQLBuilder{d: d}
	p := &Plan{}
	count := d.Count
	if len(Chain) > 0 || len(sets) > 1 {
		count = d.CountSum("records") // of a union's branches (from)
	}
	where := qs[sets[0][0]].Where
	// The records' branches (the edges of the period) give their context's number rather than
	// join their contexts, when the rollups answer the rest: a plan whose keys (of a set), not
	// its condition, use the context. Every set then groups by the number too.
	p.numbered = d.ContextNumber != "" && len(Chain) > 0 &&
		slices.ContainsFunc(sets, func(s []int) bool {
			return slices.ContainsFunc(qs[s[0]].Groups, func(g Group) bool { return g.Bucket == 0 && g.Column.Context() })
		}) &&
		(where == nil || !condUses(where, Column.Context))
	b.WriteString("SELECT ")
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
		if col := sumColumn[s]; col >= 0 {
			b.WriteString(d.Sum(col.Name()))
		} else {
			b.WriteString(count)
		}
	}
	histCol := map[Column]int{}
	for col := range NumColumns {
		if !slices.ContainsFunc(sets, func(s []int) bool {
			return slices.ContainsFunc(s, func(i int) bool { return slices.Contains(qs[i].Hists, col) })
		}) {
			continue
		}
		histCol[col] = len(p.keyCols) + p.sums + p.hists
		p.hists++
		if d.HistUnion != nil && (len(Chain) > 0 || len(sets) > 1) {
			b.WriteString(", " + d.HistUnion(col.Name()))
		} else {
			b.WriteString(", " + d.Hist(col.Name()))
		}
	}
	for si, s := range sets {
		for _, i := range s {
			a := planAnswer{query: i}
			for _, sum := range qs[i].Sums {
				a.sums = append(a.sums, sumCol[sum])
			}
			for _, h := range qs[i].Hists {
				a.hists = append(a.hists, histCol[h])
			}
			p.sets[si].answers = append(p.sets[si].answers, a)
		}
	}
	p.setCol = len(sets) > 1
	if p.setCol {
		b.WriteString(", GROUPING(" + strings.Join(aliases, ", ") + ")")
	}
	c := unionColumns(qs, sets, sumCol, histCol)
	if p.numbered {
		b.WriteString(", " + d.ContextNumber)
		c.number = d.ContextNumber
	}
	p.from(b, table, Chain, c, where)
	switch {
	case p.setCol:
		p.groupingSets(b, aliases, c.number)
	case p.numbered:
		// No LIMIT: a group may come in a row of the rollups and rows of the records by
		// context number, so that a limit on rows could cut some of a group's rows while its
		// groups were within it. The rows are those of the rollups' groups and of the
		// records at the period's edges (by context); the reader bounds the groups it merges
		// (Query.Limit).
		b.WriteString(" GROUP BY " + strings.Join(append(aliases, d.ContextNumber), ", "))
	case len(aliases) > 0:
		b.WriteString(" GROUP BY " + strings.Join(aliases, ", "))
		if limit := setLimit(qs, sets[0]); limit > 0 {
			b.WriteString(" LIMIT " + strconv.Itoa(limit))
		}
	}
	p.query, p.args = b.String(), b.Args
	p.text = strings.Split(p.query, "?")
	if len(p.text) != len(p.args)+1 {
		panic("records: a plan's SQL holds a question mark that is not a parameter")
	}
	return p
}

// setLimit is the Limit of the queries of one set: the largest, or 0 when one has none.
func setLimit(qs []*Query, set []int) int {
	limit := 0
	for _, i := range set {
		if qs[i].Limit == 0 {
			return 0
		}
		limit = max(limit, qs[i].Limit)
	}
	return limit
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
	if k == KindAddr {
		k = KindUint64
	}
	for _, name := range g.Column.SQLNames() {
		as(name, k)
	}
	return aliases
}
