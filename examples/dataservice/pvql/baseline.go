package pvql

import (
	"context"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Baselines compare a value with the same window earlier:
//
//	baseline(x, OFFSET)      x over the statement's period moved back by OFFSET
//	baseline(x, OFFSET, N)   the average of x over the N periods moved back by OFFSET, 2×OFFSET, ... N×OFFSET
//
// x is a value expression (no baseline inside), OFFSET a duration (seconds, or a number and
// one unit of s, m, h, d or w: 3600, 1h, 7d), N an integer from 1 to maxBaselineWindows. A
// group absent from an earlier window counts as no traffic there. For example
// `traffic BY server.ip HAVING traffic > 3 * baseline(traffic, 7d) SINCE @now-3600`: the
// servers with three times their traffic of the same hour a week ago.
type baselineExpr struct {
	x      expr
	offset int64 // seconds
	n      int
	// vals holds, at each answer, each group's baseline by the address of its sums (groups
	// never move): see prepareBaselines.
	vals map[*sums]float64
}

// maxBaselineWindows bounds N in baseline(x, OFFSET, N): each window is one more read.
const maxBaselineWindows = 52

// Expected texts of the baseline syntax.
const (
	expOffset  = "a duration: seconds, or a number and one unit of s, m, h, d or w (7d)"
	expWindows = "the number of windows, 1 to 52"
)

// baseline parses the rest of baseline(x, OFFSET [, N]) after its name.
func (p *parser) baseline(name token) (expr, error) {
	if p.next().kind != tokLParen {
		return nil, p.errorAt(name, "", "\"(\"")
	}
	if err := p.enter(name); err != nil {
		return nil, err
	}
	start := p.peek()
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if containsBaseline(x) {
		return nil, p.errorAt(start, "a baseline cannot contain another", expValue)
	}
	if containsQuantile(x) {
		return nil, p.errorAt(start, "a baseline cannot contain a percentile", expValue)
	}
	if containsExtreme(x) {
		return nil, p.errorAt(start, "a baseline cannot contain min or max of tls.not_after", expValue)
	}
	if t := p.next(); t.kind != tokComma {
		return nil, p.errorAt(t, "", "\",\" and the offset of the baseline")
	}
	t := p.next()
	off, ok := parseOffset(p.src[t.pos:t.end])
	if !ok || t.kind == tokEOF {
		return nil, &SyntaxError{Position: utf8.RuneCountInString(p.src[:t.pos]), Expected: expOffset,
			Message: "not a duration: " + strconv.Quote(p.src[t.pos:t.end])}
	}
	b := &baselineExpr{x: x, offset: off, n: 1}
	if p.peek().kind == tokComma {
		p.next()
		t := p.next()
		n, err := strconv.Atoi(t.text)
		if t.kind != tokNumber || err != nil || n < 1 || n > maxBaselineWindows {
			return nil, p.errorAt(t, "", expWindows)
		}
		b.n = n
	}
	if t := p.next(); t.kind != tokRParen {
		return nil, p.errorAt(t, "", "\")\"")
	}
	p.depth--
	return b, nil
}

// parseOffset parses a baseline's offset: seconds, or digits and one unit.
func parseOffset(s string) (int64, bool) {
	unit := int64(1)
	if s != "" {
		if u, ok := map[byte]int64{'s': 1, 'm': 60, 'h': 3600, 'd': 86400, 'w': 604800}[s[len(s)-1]]; ok {
			unit, s = u, s[:len(s)-1]
		}
	}
	if !allDigits(s) || len(s) > 9 {
		return 0, false
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n * unit, n > 0
}

func containsBaseline(x expr) bool {
	switch x := x.(type) {
	case *baselineExpr:
		return true
	case *binaryExpr:
		return containsBaseline(x.l) || containsBaseline(x.r)
	}
	return false
}

// isBaseline reports whether t names a baseline: "baseline" followed by "(".
func (p *parser) isBaseline(t token) bool {
	return t.kind == tokIdent && strings.EqualFold(t.text, "baseline") && p.peek().kind == tokLParen
}

// baselineString renders b in canonical form.
func baselineString(b *baselineExpr) string {
	s := "baseline(" + exprString(b.x, 0, false) + ", " + strconv.FormatInt(b.offset, 10)
	if b.n > 1 {
		s += ", " + strconv.Itoa(b.n)
	}
	return s + ")"
}

// baselines lists the statement's baselines, in its values and HAVING.
func (st *Statement) baselines() []*baselineExpr { return exprsOf[*baselineExpr](st) }

// exprsOf lists the statement's expressions of type T (baselines, percentiles), in its values
// and HAVING, as they appear.
func exprsOf[T expr](st *Statement) []T {
	var out []T
	var walk func(x expr)
	walk = func(x expr) {
		if t, ok := x.(T); ok {
			out = append(out, t)
		}
		if b, ok := x.(*binaryExpr); ok {
			walk(b.l)
			walk(b.r)
		}
	}
	for _, v := range st.values {
		walk(v.x)
	}
	walkValueFilters(st.having, func(vf *valueFilter) { walk(vf.x) })
	return out
}

// hasBaselines reports whether a statement of stmts has a baseline: a live answer then
// answers in full each time (the earlier windows do not change as records arrive).
func hasBaselines(stmts []*Statement) bool {
	for _, st := range stmts {
		if len(st.baselines()) > 0 {
			return true
		}
	}
	return false
}

// baselineSums holds the sums of a statement's groups in its earlier windows, by window.
type baselineSums struct {
	windows map[int64]*groups // by shift in seconds
}

// readBaselines reads the statement's groups over each earlier window its baselines need.
func (e *Engine) readBaselines(ctx context.Context, s *state, res *reservation, total *int) error {
	bs := s.st.baselines()
	if len(bs) == 0 {
		return nil
	}
	s.base = &baselineSums{windows: map[int64]*groups{}}
	for _, b := range bs {
		for k := 1; k <= b.n; k++ {
			shift := b.offset * int64(k)
			if s.base.windows[shift] != nil {
				continue
			}
			w := &state{st: s.st, query: s.query, slots: s.slots, groups: groupsOf(s.slots)}
			sc := &scan{plan: e.store.Compile(s.query), states: []*state{w}, index: []int{1}}
			if err := e.read(ctx, sc, s.since-shift, s.until-shift, res, total); err != nil {
				return err
			}
			s.base.windows[shift] = w.groups
		}
	}
	return nil
}

// prepareBaselines computes each group's baselines before the statement's answer.
func (s *state) prepareBaselines() {
	if s.base == nil {
		return
	}
	var zero sums
	for _, b := range s.st.baselines() {
		b.vals = make(map[*sums]float64, s.groups.len())
		for i := range s.groups.len() {
			gr, key := s.groups.group(i), s.groups.key(i)
			total := 0.0
			for k := 1; k <= b.n; k++ {
				sm := &zero
				if w := windowGroup(s.base.windows[b.offset*int64(k)], key, b.offset*int64(k)); w != nil {
					sm = &w.sums
				}
				total += eval(b.x, sm)
			}
			b.vals[&gr.sums] = total / float64(b.n)
		}
	}
}

// windowGroup returns the group of the earlier window g, shift seconds before, that stands for
// key k, or nil: its point T stands for the later T+shift, and a key without time (0) for
// itself.
func windowGroup(g *groups, k gkey, shift int64) *group {
	if k.time != 0 {
		if k.time -= shift; k.time == 0 {
			return nil
		}
	}
	return g.lookup(k)
}

// evalBaseline is the value of a baseline for the group whose sums are s.
func evalBaseline(b *baselineExpr, s *sums) float64 {
	if v, ok := b.vals[s]; ok {
		return v
	}
	return math.NaN()
}

// valueOperand reports whether the right operand of a HAVING comparison is a value
// expression rather than a number: it begins with a value's name, a baseline or "(", or is a
// number that an operator follows (3 * baseline(traffic, 7d)).
func (p *parser) valueOperand() bool {
	t := p.peek()
	switch t.kind {
	case tokIdent:
		_, isMetric := metricByName(t.text)
		_, isAlias := p.aliases[t.text]
		_, isQuantile := p.quantileFunc(t)
		return isMetric || isAlias || isQuantile || strings.EqualFold(t.text, "baseline")
	case tokLParen:
		return true
	case tokNumber:
		switch p.toks[p.i+1].kind {
		case tokPlus, tokMinus, tokStar, tokSlash:
			return true
		}
	}
	return false
}

// valueAgainstValue parses the right operand of vf as a value expression: x op y becomes
// x - y op 0, null when either is.
func (p *parser) valueAgainstValue(vf *valueFilter) (fnode, error) {
	y, err := p.expr()
	if err != nil {
		return fnode{}, err
	}
	vf.x, vf.nums = &binaryExpr{op: '-', l: vf.x, r: y}, []float64{0}
	return fnode{f: vf}, nil
}
