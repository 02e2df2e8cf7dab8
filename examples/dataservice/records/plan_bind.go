package records

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

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
