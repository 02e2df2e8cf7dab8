package pvql

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// fnode is a parsed condition, or, inside parentheses in HAVING, an arithmetic expression
// that turns out to be the left operand of a comparison: "(traffic + 1) > 5".
type fnode struct {
	f filter
	x expr
}

// or parses: and {"OR" and}. having selects HAVING operands (values) over WHERE operands
// (fields); mixed lets the first operand be a bare expression.
func (p *parser) or(having, mixed bool) (fnode, error) {
	l, err := p.and(having, mixed)
	if err != nil || l.x != nil {
		return l, err
	}
	terms := []filter{l.f}
	for isKeyword(p.peek(), "OR") {
		p.next()
		r, err := p.and(having, false)
		if err != nil {
			return fnode{}, err
		}
		terms = append(terms, r.f)
	}
	if len(terms) == 1 {
		return l, nil
	}
	return fnode{f: &orFilter{terms: terms}}, nil
}

// and parses: not {"AND" not}.
func (p *parser) and(having, mixed bool) (fnode, error) {
	l, err := p.not(having, mixed)
	if err != nil || l.x != nil {
		return l, err
	}
	terms := []filter{l.f}
	for isKeyword(p.peek(), "AND") {
		p.next()
		r, err := p.not(having, false)
		if err != nil {
			return fnode{}, err
		}
		terms = append(terms, r.f)
	}
	if len(terms) == 1 {
		return l, nil
	}
	return fnode{f: &andFilter{terms: terms}}, nil
}

// not parses: "NOT" not | primary.
func (p *parser) not(having, mixed bool) (fnode, error) {
	t := p.peek()
	if !isKeyword(t, "NOT") {
		return p.primary(having, mixed)
	}
	p.next()
	if err := p.enter(t); err != nil {
		return fnode{}, err
	}
	x, err := p.not(having, false)
	if err != nil {
		return fnode{}, err
	}
	p.depth--
	return fnode{f: &notFilter{x: x.f}}, nil
}

// primary parses a parenthesised condition or one comparison.
func (p *parser) primary(having, mixed bool) (fnode, error) {
	t := p.peek()
	if t.kind != tokLParen {
		if !having {
			return p.fieldComparison()
		}
		x, err := p.expr()
		if err != nil {
			return fnode{}, err
		}
		return p.valueComparison(x, mixed)
	}
	p.next()
	if err := p.enter(t); err != nil {
		return fnode{}, err
	}
	inner, err := p.or(having, having)
	if err != nil {
		return fnode{}, err
	}
	if r := p.next(); r.kind != tokRParen {
		expected := "AND, OR or \")\""
		if inner.x != nil {
			expected = "an operator (+, -, *, /, =, !=, <, <=, >, >=, IN) or \")\""
		}
		return fnode{}, p.errorAt(r, "", expected)
	}
	p.depth--
	if inner.x == nil {
		return inner, nil
	}
	x, err := p.termRest(inner.x)
	if err == nil {
		x, err = p.exprRest(x)
	}
	if err != nil {
		return fnode{}, err
	}
	return p.valueComparison(x, mixed)
}

// compareOp reads a comparison operator or IN, if t is one.
func compareOp(t token) (op, bool) {
	switch t.kind {
	case tokEq:
		return opEq, true
	case tokNe:
		return opNe, true
	case tokLt:
		return opLt, true
	case tokLe:
		return opLe, true
	case tokGt:
		return opGt, true
	case tokGe:
		return opGe, true
	}
	return opIn, isKeyword(t, "IN")
}

// valueComparison parses the rest of a HAVING comparison whose left operand is x.
func (p *parser) valueComparison(x expr, mixed bool) (fnode, error) {
	t := p.peek()
	o, ok := compareOp(t)
	if !ok {
		if mixed {
			return fnode{x: x}, nil
		}
		return fnode{}, p.errorAt(t, "", "an operator (+, -, *, /, =, !=, <, <=, >, >=, IN)")
	}
	p.next()
	vf := &valueFilter{x: x, op: o}
	if o != opIn && p.valueOperand() {
		return p.valueAgainstValue(vf)
	}
	if o != opIn {
		n, err := p.signedNumber()
		vf.nums = []float64{n}
		return fnode{f: vf}, err
	}
	err := p.list(func() error {
		n, err := p.signedNumber()
		vf.nums = append(vf.nums, n)
		return err
	})
	return fnode{f: vf}, err
}

func (p *parser) signedNumber() (float64, error) {
	t := p.next()
	neg := t.kind == tokMinus
	if neg {
		t = p.next()
	}
	if t.kind != tokNumber {
		return 0, p.errorAt(t, "", expNumber)
	}
	f, err := strconv.ParseFloat(t.text, 64)
	if err != nil {
		return 0, p.errorAt(t, "number too large", expNumber)
	}
	if neg {
		f = -f
	}
	return f, nil
}

// list parses "(" item {"," item} ")".
func (p *parser) list(item func() error) error {
	if t := p.next(); t.kind != tokLParen {
		return p.errorAt(t, "", "\"(\"")
	}
	for {
		if err := item(); err != nil {
			return err
		}
		t := p.next()
		if t.kind == tokRParen {
			return nil
		}
		if t.kind != tokComma {
			return p.errorAt(t, "", "\",\" or \")\"")
		}
	}
}

// fieldComparison parses a WHERE comparison: field op literal | field IN (...) | ip IN CIDR.
func (p *parser) fieldComparison() (fnode, error) {
	t := p.next()
	field, ok := fieldByName(t)
	if !ok {
		msg := unknown(t, "field")
		if _, isMetric := metricByName(t.text); isMetric && t.kind == tokIdent {
			msg = t.text + " is a value; filter values with HAVING"
		} else if isKeyword(t, "time") {
			msg = "time cannot be filtered; use SINCE and UNTIL"
		}
		return fnode{}, p.errorAt(t, msg, expField)
	}
	p.noteLayer(field, t)
	o, ok := compareOp(p.peek())
	if !ok {
		return fnode{}, p.errorAt(p.peek(), "", expCompare)
	}
	if keyKinds[field].column.List() && o != opEq && o != opNe && o != opIn {
		return fnode{}, p.errorAt(p.peek(), keyKinds[field].name+" takes =, != and IN", "=, != or IN")
	}
	p.next()
	ff := &fieldFilter{field: field, op: o}
	isIP := keyKinds[field].typ.name == "ip"
	if o != opIn {
		at := p.peek()
		l, err := p.literal(field, false)
		if err == nil && l.nested && o != opEq {
			err = p.errorAt(at, "a zone prefix takes = or IN", "a zone name")
		}
		ff.lits = []literal{l}
		ff.at = [2]int{at.pos, p.toks[p.i-1].end} // the literal's last token
		return fnode{f: ff}, err
	}
	if c := p.peek(); keyKinds[field].typ == zoneType && c.kind == tokString {
		l, err := p.literal(field, false) // client.zone IN "Customers/"
		ff.lits = []literal{l}
		return fnode{f: ff}, err
	}
	if c := p.peek(); isIP && c.kind == tokPrefix {
		p.next()
		ff.lits = []literal{prefixLiteral(c.text)}
		return fnode{f: ff}, nil
	}
	if c := p.peek(); c.kind != tokLParen {
		expected := "\"(\""
		if isIP {
			expected = "\"(\" or a CIDR (10.0.0.0/8)"
		}
		return fnode{}, p.errorAt(c, "", expected)
	}
	err := p.list(func() error {
		l, err := p.literal(field, isIP)
		ff.lits = append(ff.lits, l)
		return err
	})
	return fnode{f: ff}, err
}

func fieldByName(t token) (keyKind, bool) {
	for i, k := range keyKinds {
		if keyKind(i) != kTime && t.kind == tokIdent && strings.EqualFold(t.text, k.name) {
			return keyKind(i), true
		}
	}
	return 0, false
}

// literal parses a WHERE operand of the type of field; prefix allows a CIDR.
func (p *parser) literal(field keyKind, prefix bool) (literal, error) {
	return keyKinds[field].typ.literal(p, p.next(), prefix)
}

// addrOf returns a as 128 bits, IPv4 mapped into IPv6, as the records table keeps it.
func addrOf(a netip.Addr) records.Value {
	hi, lo := records.Halves(a)
	return records.Value{Hi: hi, Lo: lo}
}

// prefixLiteral returns the address range of a CIDR the lexer has checked.
func prefixLiteral(text string) literal {
	pf := netip.MustParsePrefix(text).Masked()
	bits := pf.Bits()
	if pf.Addr().Is4() {
		bits += 96
	}
	lo := addrOf(pf.Addr())
	hi := lo
	switch {
	case bits <= 64:
		hi.Hi |= ^uint64(0) >> bits
		hi.Lo = ^uint64(0)
	default:
		hi.Lo |= ^uint64(0) >> (bits - 64)
	}
	return literal{from: lo, to: hi}
}
