package pvql

import (
	"strconv"
	"strings"
)

// expr parses: term {("+" | "-") term}.
func (p *parser) expr() (expr, error) {
	l, err := p.term()
	if err != nil {
		return nil, err
	}
	return p.exprRest(l)
}

func (p *parser) exprRest(l expr) (expr, error) {
	for t := p.peek(); t.kind == tokPlus || t.kind == tokMinus; t = p.peek() {
		p.next()
		r, err := p.term()
		if err != nil {
			return nil, err
		}
		l = &binaryExpr{op: t.text[0], l: l, r: r}
	}
	return l, nil
}

// term parses: factor {("*" | "/") factor}.
func (p *parser) term() (expr, error) {
	l, err := p.factor()
	if err != nil {
		return nil, err
	}
	return p.termRest(l)
}

func (p *parser) termRest(l expr) (expr, error) {
	for t := p.peek(); t.kind == tokStar || t.kind == tokSlash; t = p.peek() {
		p.next()
		r, err := p.factor()
		if err != nil {
			return nil, err
		}
		l = &binaryExpr{op: t.text[0], l: l, r: r}
	}
	return l, nil
}

// factor parses: NUMBER | metric | "(" expr ")", and in HAVING an alias.
func (p *parser) factor() (expr, error) {
	expected := expValue
	if p.aliases != nil {
		expected = expAlias
	}
	t := p.next()
	switch t.kind {
	case tokNumber:
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, p.errorAt(t, "number too large", expected)
		}
		return numberExpr(f), nil
	case tokLParen:
		if err := p.enter(t); err != nil {
			return nil, err
		}
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		if r := p.next(); r.kind != tokRParen {
			return nil, p.errorAt(r, "", "an operator (+, -, *, /) or \")\"")
		}
		p.depth--
		return x, nil
	case tokString:
		if x, ok := p.aliases[t.text]; ok {
			return x, nil
		}
		if p.aliases != nil {
			return nil, p.errorAt(t, "unknown alias "+strconv.Quote(t.text), expected)
		}
	case tokIdent:
		if p.isBaseline(t) {
			return p.baseline(t)
		}
		if x, ok := p.extreme(t); ok {
			return x, nil
		}
		if fn, ok := p.quantileFunc(t); ok {
			return p.quantile(t, fn)
		}
		if m, ok := metricByName(t.text); ok {
			return m, nil
		}
		if v, ok := queueValueByName(t.text); ok {
			return v, nil
		}
		if x, ok := p.aliases[t.text]; ok {
			return x, nil
		}
		for _, k := range keyKinds {
			if strings.EqualFold(t.text, k.name) {
				return nil, p.errorAt(t, t.text+" is a key, not a value", expected)
			}
		}
		return nil, p.errorAt(t, unknown(t, "field"), expected)
	}
	return nil, p.errorAt(t, "", expected)
}
