package records

import (
	"reflect"
	"slices"
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
		j := slices.IndexFunc(byWhere, func(g []int) bool {
			return qs[g[0]].Layer == q.Layer && reflect.DeepEqual(qs[g[0]].Where, q.Where)
		})
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
func compileSets(d *Dialect, table string, chain []*Rollup, qs []*Query, sets [][]int) *Plan {
	where := qs[sets[0][0]].Where
	union := len(chain) > 0 || len(sets) > 1 // the rows come summed from a union's branches (from)
	p := &Plan{numbered: numberedContext(d, chain, qs, sets, where), setCol: len(sets) > 1}
	b := &SQLBuilder{d: d}
	b.WriteString("SELECT ")
	aliases := p.selectKeys(b, qs, sets)
	sumCol := p.selectSums(b, qs, sets, union)
	histCol := p.selectHists(b, qs, sets, union)
	p.answerSets(qs, sets, sumCol, histCol)
	c := unionColumns(qs, sets, sumCol, histCol)
	c.number = p.selectSetAndNumber(b, aliases)
	p.from(b, table, chain, c, where, qs[sets[0][0]].Layer)
	p.groupBy(b, aliases, c.number, setLimit(qs, sets[0]))
	p.setQuery(b)
	return p
}

// numberedContext says whether the records' branches (the edges of the period) give their
// context's number rather than join their contexts, when the rollups answer the rest: a plan
// whose keys (of a set), not its condition, use the context. Every set then groups by the
// number too.
func numberedContext(d *Dialect, chain []*Rollup, qs []*Query, sets [][]int, where Cond) bool {
	return d.ContextNumber != "" && len(chain) > 0 &&
		slices.ContainsFunc(sets, func(s []int) bool {
			return slices.ContainsFunc(qs[s[0]].Groups, func(g Group) bool { return g.Bucket == 0 && g.Column.Context() })
		}) &&
		(where == nil || !condUses(where, Column.Context))
}

// answerSets gives each of p's sets the answers of its queries: the columns of their sums
// (sumCol) and histograms (histCol).
func (p *Plan) answerSets(qs []*Query, sets [][]int, sumCol [NumSums]int, histCol map[Column]int) {
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
}

// setQuery keeps b's SQL and arguments as p's query, with its text cut at each parameter.
func (p *Plan) setQuery(b *SQLBuilder) {
	p.query, p.args = b.String(), b.Args
	p.text = strings.Split(p.query, "?")
	if len(p.text) != len(p.args)+1 {
		panic("records: a plan's SQL holds a question mark that is not a parameter")
	}
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
