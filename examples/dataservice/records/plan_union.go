package records

import (
	"fmt"
	"math"
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
// aggregation of the records at the edges of their period.
func (p *Plan) from(b *SQLBuilder, table string, Chain []*Rollup, c branchCols, where Cond) {
	if b.d.ContextFrom != "" && c.number == "" && (len(c.contextKeys) > 0 || where != nil && condUses(where, Column.Context)) {
		table = b.d.ContextFrom
	}
	one := func(source int, table string) {
		b.WriteString(" FROM " + table + " WHERE time >= ")
		p.branches = append(p.branches, branch{source: source, arg: len(b.Args)})
		b.d.Param(b, int64(0), KindInt64)
		b.WriteString(" AND time < ")
		b.d.Param(b, int64(0), KindInt64)
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
			b.WriteString("SELECT " + c.selectList(source == 0, b.d))
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
		if sumCol[s] >= 0 && col >= 0 {
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

// selectList is the select list of a branch over the records (records) or over a rollup in
// dialect d.
func (c branchCols) selectList(records bool, d *Dialect) string {
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
			h = d.HistBranch(h, records)
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

// OpenEnd returns the end a read of p over a period ending at to may use instead when the
// store holds no record at or after to, as for a period up to now: to raised to a multiple of
// the width of p's coarsest rollup. The period gains only times without records, and its
// newest buckets are read whole from that rollup where they were cut from each finer one and
// from the records: a day's percentile read 5 branches where it read 9, its traffic 3 where 5
// (BENCHMARKS.md, "Open ends"). A plan without rollups keeps to.
func (p *Plan) OpenEnd(to int64) int64 {
	if len(p.widths) == 0 {
		return to
	}
	w := p.widths[len(p.widths)-1]
	if to > math.MaxInt64-w {
		return to
	}
	return CeilTo(to, w)
}

// Bind returns the plan's arguments with the range of each branch set for the period
// [from, to): the whole buckets of the coarsest rollup from it, the cut buckets at either edge
// from the next finer rollup, and so on, the cut seconds of the finest from the records; each
// rollup read before its mark only (marks, in the order of widths; nil when none has one), and
// none whose mark is behind a coarser one's (readLevels). A branch with nothing to read gets
// the empty range [0, 0).
func (p *Plan) Bind(from, to int64, marks []int64) ([]any, error) {
	args := slices.Clone(p.args)
	bound := make([]bool, len(p.branches))
	for _, br := range p.branches {
		args[br.arg], args[br.arg+1] = int64(0), int64(0)
	}
	levels := readLevels(marks, len(p.widths))
	widths, levelMarks := make([]int64, len(levels)), []int64(nil)
	for k, i := range levels {
		widths[k] = p.widths[i]
		if marks != nil {
			levelMarks = append(levelMarks, marks[i])
		}
	}
	var err error
	splitWidths(widths, levelMarks, from, to, func(source int, from, to int64) {
		if source > 0 {
			source = levels[source-1] + 1
		}
		for i, br := range p.branches {
			if br.source == source && !bound[i] {
				bound[i] = true
				args[br.arg], args[br.arg+1] = from, to
				return
			}
		}
		err = fmt.Errorf("records: the plan has no branch left for [%d, %d) of source %d", from, to, source)
	})
	return args, err
}

// readLevels returns the indexes of the n rollups of a plan (finest first, with marks, nil
// when none has one) that a read uses: every one but a rollup whose mark is behind a coarser
// one's. A coarser rollup is read only before the marks of the finer ones (splitWidths), so
// such a rollup (new in a file of an earlier version and still catching up) would send to the
// records everything the coarser one holds past its mark; skipped, the read is what it was
// before the rollup existed. Rollups kept in the background are never so otherwise: the step
// rolls each as far as it is due, and a finer width is due at least as far as a coarser one.
func readLevels(marks []int64, n int) []int {
	var out []int
	for i := range n {
		behind := false
		for j := i + 1; marks != nil && j < n; j++ {
			behind = behind || marks[i] < marks[j]
		}
		if !behind {
			out = append(out, i)
		}
	}
	return out
}

// unionAll joins the branches of a plan's union.
const unionAll = " UNION ALL "

// LiteralTimes returns the plan's query with the bounds of its branches' ranges in args (from
// bind) written as literals, and the other arguments. DuckDB skips a table's row groups by
// their time range only for a literal range: with the bounds as parameters, the statements by
// address read 2-3 times the records they keep at their edges and took 1.6x as long
// (BENCHMARKS.md). The bounds are integers the plan computed, never a caller's text.
//
// A branch of a union whose range is empty is left out, with its arguments (the first branch
// stays when all are empty): DuckDB plans each SELECT of a union before it finds its range
// empty, and a day's percentile, four of its nine branches empty, spent a fifth of its time
// planning them (BENCHMARKS.md, "Open ends").
func (p *Plan) LiteralTimes(args []any) (string, []any) {
	bound := make([]bool, len(args))
	for _, br := range p.branches {
		bound[br.arg], bound[br.arg+1] = true, true
	}
	var b strings.Builder
	var rest []any
	at, next := 0, 0 // the next byte of the query to write and the next argument
	pos := len(p.text[0])
	write := func(to int) { // the query up to byte to, each argument before it in its place
		for ; next < len(args) && pos < to; next++ {
			b.WriteString(p.query[at:pos])
			if bound[next] {
				b.WriteString(strconv.FormatInt(args[next].(int64), 10))
			} else {
				b.WriteString("?")
				rest = append(rest, args[next])
			}
			at = pos + 1
			pos = at + len(p.text[next+1])
		}
		b.WriteString(p.query[at:to])
		at = to
	}
	skip := func(to int) { // the query up to byte to left out, with its arguments
		for ; next < len(args) && pos < to; next++ {
			pos += 1 + len(p.text[next+1])
		}
		at = to
	}
	kept := make([]bool, len(p.branches))
	for i, br := range p.branches {
		kept[i] = len(p.branches) == 1 || args[br.arg].(int64) < args[br.arg+1].(int64)
	}
	kept[0] = kept[0] || !slices.Contains(kept, true)
	first := true
	for i, br := range p.branches {
		switch {
		case !kept[i]:
			write(br.start)
			skip(br.end)
		case first && i > 0:
			write(br.start)
			skip(br.start + len(unionAll))
		}
		first = first && !kept[i]
	}
	write(len(p.query))
	return b.String(), rest
}

// splitWidths calls fn for each piece of [from, to), in order: the whole buckets of the
// coarsest width (source len(widths)) before its mark, the cut buckets at either edge and those
// at or after the mark from the next finer width, and so on, the rest from source 0, the
// records. Widths are finest first, and each divides the next; marks (nil: none) are the times
// before which each width may be read. Each source gets at most two pieces, the coarsest at
// most one: a coarser width is read only before the marks of the finer ones (each level's
// effective mark is the least of its own and the finer ones', floored to its width).
func splitWidths(widths, marks []int64, from, to int64, fn func(source int, from, to int64)) {
	eff := make([]int64, len(widths))
	for i, w := range widths {
		m := int64(math.MaxInt64)
		if marks != nil {
			m = marks[i]
		}
		if i > 0 {
			m = min(m, eff[i-1])
		}
		eff[i] = FloorTo(m, w)
	}
	split(widths, eff, from, to, fn)
}

// split is splitWidths with effective marks.
func split(widths, marks []int64, from, to int64, fn func(source int, from, to int64)) {
	if from >= to {
		return
	}
	n := len(widths)
	if n == 0 {
		fn(0, from, to)
		return
	}
	lo, hi := CeilTo(from, widths[n-1]), min(FloorTo(to, widths[n-1]), marks[n-1])
	if lo >= hi {
		split(widths[:n-1], marks[:n-1], from, to, fn)
		return
	}
	split(widths[:n-1], marks[:n-1], from, lo, fn)
	fn(n, lo, hi)
	split(widths[:n-1], marks[:n-1], hi, to, fn)
}

// BindRecords returns p's arguments with the whole period [from, to) read from the records
// and nothing from the rollups: its first branch over the records gets the period, every
// other branch the empty range. An engine whose rollups may disagree with its records (ClickHouse's,
// while being repaired) binds with it instead of Bind.
func (p *Plan) BindRecords(from, to int64) []any {
	args := slices.Clone(p.args)
	first := true
	for _, br := range p.branches {
		args[br.arg], args[br.arg+1] = int64(0), int64(0)
		if br.source == 0 && first {
			args[br.arg], args[br.arg+1] = from, to
			first = false
		}
	}
	return args
}
