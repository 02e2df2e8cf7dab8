package records

import (
	"slices"
	"strconv"
	"strings"
)

// from writes the FROM clause of a plan reading table, the records, and the rollups of chain
// (finest first) for the columns c with the condition where, and sets the plan's branches and
// widths. Without rollups and with one key set it is the records over one range of the period.
// Otherwise it is the union of a SELECT per branch, each giving the columns of c and the
// record count as records: two over the records and two over each rollup but the coarsest,
// one over that, as many ranges as splitWidths cuts a period into for each source (the cut
// seconds at either edge, the cut buckets at either edge of each coarser level, the whole
// buckets of the coarsest). With several key sets the records' branches sum their rows by
// every key of the sets first (c.grain), so that each set's aggregation reads those sums, not
// every record: the sets of the overview's address statements share one pass and one
// aggregation of the records at the edges of their period. The records' branches read the
// records of layer only; the rollups hold the transport's alone.
func (p *Plan) from(b *SQLBuilder, table string, Chain []*Rollup, c branchCols, where Cond, layer Layer) {
	if b.d.ContextFrom != "" && c.number == "" && (len(c.contextKeys) > 0 || where != nil && condUses(where, Column.Context)) {
		table = b.d.ContextFrom
	}
	one := func(source int, table string) {
		b.WriteString(" FROM " + table + " WHERE time >= ")
		p.branches = append(p.branches, branch{source: source, arg: len(b.Args)})
		b.d.Param(b, int64(0), KindInt64)
		b.WriteString(" AND time < ")
		b.d.Param(b, int64(0), KindInt64)
		if source == 0 {
			// IN, not =: ClickHouse 18.16 reading a part made before the column, whose
			// histograms' DEFAULT holds the constant 0 too, fails on a second column "0".
			b.WriteString(" AND layer IN (" + strconv.Itoa(int(layer)) + ")")
		}
		if where != nil {
			b.WriteString(" AND ")
			b.cond(where)
		}
	}
	if len(Chain) == 0 && !c.grouped {
		one(0, table)
		return
	}
	b.WriteString(" FROM (")
	for source := range len(Chain) + 1 {
		t := table
		if source > 0 {
			t = Chain[source-1].Table
			p.widths, p.Levels = append(p.widths, Chain[source-1].Width), append(p.Levels, Chain[source-1])
		}
		n := 2
		if source == len(Chain) {
			n = 1
		}
		for range n {
			start := b.Len()
			if len(p.branches) > 0 {
				b.WriteString(unionAll)
			}
			var r *Rollup
			if source > 0 {
				r = Chain[source-1]
			}
			b.WriteString("SELECT " + c.selectList(r, b.d))
			one(source, t)
			if source == 0 && c.grouped {
				b.WriteString(" GROUP BY " + strings.Join(c.groupBy(), ", "))
			}
			br := &p.branches[len(p.branches)-1]
			br.start, br.end = start, b.Len()
		}
	}
	b.WriteString(") AS branches")
}

// branchCols are the columns the branches of a union give: time (when a key is a time bucket),
// the key columns, the summed columns, and records, the record count.
type branchCols struct {
	// grain is the greatest common divisor of the widths of the time bucket keys, 0 without.
	grain int64
	keys  []string
	sums  []string
	hists []string // histogram columns (KindHist)
	// grouped is true when the records' branches sum their rows by grain and keys.
	grouped bool
	// contextKeys are the kinds of the keys that are context columns (Column.Context), by
	// name; nil without.
	contextKeys map[string]Kind
	// number, when not empty, is the context number column (Dialect.ContextNumber) the
	// branches give after the records count: the records' own, 0 from the rollups, whose
	// branches give the context keys themselves where the records' give zeros.
	number string
}

// unionColumns returns the columns the branches of a union give for the queries of sets, each
// of which reads the sums s with sumCol[s] >= 0 and the histograms of histCol.
func unionColumns(qs []*Query, sets [][]int, sumCol [NumSums]int, histCol map[Column]int) branchCols {
	c := branchCols{grouped: len(sets) > 1}
	add := func(to *[]string, names ...string) {
		for _, n := range names {
			if !slices.Contains(*to, n) {
				*to = append(*to, n)
			}
		}
	}
	for _, s := range sets {
		for _, g := range qs[s[0]].Groups {
			if g.Bucket > 0 {
				c.grain = gcd(c.grain, g.Bucket)
				continue
			}
			add(&c.keys, g.Column.SQLNames()...)
			if g.Column.Context() {
				if c.contextKeys == nil {
					c.contextKeys = map[string]Kind{}
				}
				c.contextKeys[g.Column.Name()] = g.Column.Kind()
			}
		}
	}
	for s, col := range sumColumn {
		if ext, _ := Sum(s).Extreme(); ext && sumCol[s] >= 0 {
			// An extreme's branches give the column as a key: its extreme over theirs is
			// the records'.
			add(&c.keys, col.Name())
		} else if sumCol[s] >= 0 && col >= 0 {
			add(&c.sums, col.Name())
		}
	}
	for col := range NumColumns {
		if _, ok := histCol[col]; ok {
			add(&c.hists, col.Name())
		}
	}
	return c
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// grainTime is the first second of the grain covering time; a time bucket of a multiple of the
// grain is the same for it as for time.
func (c branchCols) grainTime() string {
	return BucketStart(strconv.FormatInt(c.grain, 10))
}

// selectList is the select list of a branch over rollup r, or over the records when r is nil,
// in dialect d.
func (c branchCols) selectList(r *Rollup, d *Dialect) string {
	records := r == nil
	u64 := d.Types[KindUint64]
	var cols []string
	if c.grain > 0 {
		t := "time"
		if records && c.grouped {
			t = c.grainTime() + " AS time"
		}
		cols = append(cols, t)
	}
	for _, k := range c.keys {
		if records && c.number != "" {
			if kind, ok := c.contextKeys[k]; ok {
				k = zeroSQL(kind, d) + " AS " + k
			}
		}
		cols = append(cols, k)
	}
	for _, s := range c.sums {
		switch {
		case records && c.grouped:
			s = d.Partial(s) + " AS " + s
		case records:
			s = d.Widen(s) + " AS " + s
		}
		cols = append(cols, s)
	}
	for _, h := range c.hists {
		switch {
		case d.HistBranch != nil:
			h = d.HistBranch(h, r, records && c.grouped)
		case records && c.grouped:
			h = d.Hist(h) + " AS " + h
		}
		cols = append(cols, h)
	}
	switch {
	case !records:
		cols = append(cols, "records")
	case c.grouped:
		cols = append(cols, "CAST(COUNT(*) AS "+u64+") AS records")
	default:
		cols = append(cols, "CAST(1 AS "+u64+") AS records")
	}
	switch {
	case c.number != "" && records:
		cols = append(cols, c.number)
	case c.number != "":
		cols = append(cols, "CAST(0 AS "+u64+") AS "+c.number)
	}
	return strings.Join(cols, ", ")
}

// zeroSQL is the zero of kind k (a number or a string) in dialect d.
func zeroSQL(k Kind, d *Dialect) string {
	if k == KindString {
		return "''"
	}
	return "CAST(0 AS " + d.Types[k] + ")"
}

// groupBy is what the records' branches of a grouped union group by: the context number
// rather than the context keys, which they give as zeros, when the branches give it.
func (c branchCols) groupBy() []string {
	var out []string
	if c.grain > 0 {
		out = append(out, c.grainTime())
	}
	for _, k := range c.keys {
		if _, ok := c.contextKeys[k]; !ok || c.number == "" {
			out = append(out, k)
		}
	}
	if c.number != "" {
		out = append(out, c.number)
	}
	return out
}

// unionAll joins the branches of a plan's union.
const unionAll = " UNION ALL "
