package pvql

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits that bound the work of parsing; exceeding one is a *SyntaxError.
const (
	// MaxLength is the longest expression accepted, in characters.
	MaxLength = 100_000
	// MaxDepth is the deepest nesting of parentheses and NOTs accepted.
	MaxDepth = 64
	// MaxStatements is the most statements one expression may hold.
	MaxStatements = 100
)

// maxBucket bounds N in time(N) (about 136 years) so that bucket arithmetic cannot overflow.
const (
	maxBucket     = 1 << 32
	maxBucketText = "4294967296"
)

const (
	expValue   = "a value (traffic, packets, records, ...)"
	expAlias   = "a value (traffic, packets, records, ...) or an alias given with AS"
	expClause  = "a clause (BY, FROM, WHERE, HAVING, TOP, SINCE, UNTIL), \";\" or the end of the query"
	expTime    = "a time (Unix seconds, @now, @now-N or @now+N)"
	expCompare = "a comparison operator (=, !=, <, <=, >, >=) or IN"
	expNumber  = "a number"
)

// What the parser expects where a key, a WHERE field or a layer goes, named from their tables.
var (
	expKey   = "a key (time(N), " + keyNames() + ")"
	expField = "a field (" + keyNames() + "), NOT or \"(\""
	expLayer = "a layer (" + layerNames() + ")"
)

// keyNames lists the keys but time, comma separated.
func keyNames() string {
	var names []string
	for i, k := range keyKinds {
		if keyKind(i) != kTime {
			names = append(names, k.name)
		}
	}
	return strings.Join(names, ", ")
}

func layerNames() string {
	var names []string
	for _, l := range layers {
		names = append(names, l.name)
	}
	return strings.Join(names, ", ")
}

// Parse parses a query expression into its statements (one or more, separated by ";"; a
// final ";" is allowed). Any error is a *SyntaxError.
func Parse(expr string) ([]*Statement, error) {
	if len(expr) > MaxLength && utf8.RuneCountInString(expr) > MaxLength {
		return nil, &SyntaxError{Position: MaxLength, Message: "expression too long",
			Expected: "an expression of at most " + strconv.Itoa(MaxLength) + " characters"}
	}
	p := &parser{src: expr, toks: lex(expr)}
	var out []*Statement
	for {
		if len(out) == MaxStatements {
			return nil, p.errorAt(p.peek(), "too many statements", "at most "+strconv.Itoa(MaxStatements)+" statements")
		}
		st, err := p.statement()
		if err != nil {
			return nil, err
		}
		out = append(out, st)
		if p.next().kind == tokEOF || p.peek().kind == tokEOF {
			return out, nil
		}
	}
}

// Validate reports whether expr is a valid query expression, returning Parse's error.
func Validate(expr string) error {
	_, err := Parse(expr)
	return err
}

// parser is a recursive-descent parser over the tokens of one expression.
type parser struct {
	src     string
	toks    []token
	i       int
	depth   int
	aliases map[string]expr // set while parsing HAVING
	layered []layerUse      // the keys of one layer the statement names (layers.go)
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

// errorAt makes a *SyntaxError at token t; an empty msg describes t as unexpected.
func (p *parser) errorAt(t token, msg, expected string) error {
	switch {
	case t.kind == tokIllegal:
		msg = t.text
	case msg == "":
		msg = "unexpected " + describe(t)
	}
	return &SyntaxError{Position: utf8.RuneCountInString(p.src[:t.pos]), Expected: expected, Message: msg}
}

func describe(t token) string {
	switch t.kind {
	case tokEOF:
		return "end of the query"
	case tokString:
		return "string " + strconv.Quote(t.text)
	}
	return strconv.Quote(t.text)
}

func isKeyword(t token, kw string) bool { return t.kind == tokIdent && strings.EqualFold(t.text, kw) }

// enter counts one more level of nesting at t.
func (p *parser) enter(t token) error {
	p.depth++
	if p.depth > MaxDepth {
		return p.errorAt(t, "nesting too deep", "at most "+strconv.Itoa(MaxDepth)+" nested parentheses or NOTs")
	}
	return nil
}

var clauses = []string{"BY", "FROM", "WHERE", "HAVING", "TOP", "SINCE", "UNTIL"}

func clauseOf(t token) string {
	for _, c := range clauses {
		if isKeyword(t, c) {
			return c
		}
	}
	return ""
}

// statement parses values and clauses up to ";" or the end, which it leaves unread.
func (p *parser) statement() (*Statement, error) {
	st := &Statement{}
	p.layered = nil
	from := p.peek().pos
	more, err := p.values(st)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for {
		t := p.peek()
		if t.kind == tokSemicolon || t.kind == tokEOF {
			if err := p.checkLayer(st); err != nil {
				return nil, err
			}
			if err := p.checkQueue(st, from); err != nil {
				return nil, err
			}
			st.shape = shapeOf(p.src, from, t.pos, st.havingAt)
			st.family, st.eq = familyOf(p.src, from, t.pos, st)
			return st, nil
		}
		c := clauseOf(t)
		if c == "" {
			return nil, p.errorAt(t, "", more)
		}
		if seen[c] {
			return nil, p.errorAt(t, c+" given twice", "a clause not given before in this statement, \";\" or the end of the query")
		}
		seen[c] = true
		p.next()
		if more, err = p.clause(st, c); err != nil {
			return nil, err
		}
		if c == "HAVING" {
			st.havingAt = [2]int{t.pos, p.peek().pos}
		}
	}
}

// clause parses the clause c (already read) and returns what may follow it.
func (p *parser) clause(st *Statement, c string) (string, error) {
	var err error
	switch c {
	case "BY":
		return "\",\", " + expClause, p.by(st)
	case "FROM":
		t := p.next()
		for i, l := range layers {
			if t.kind == tokIdent && strings.EqualFold(t.text, l.name) {
				st.layer = layer(i)
				return expClause, nil
			}
		}
		return "", p.errorAt(t, unknown(t, "layer"), expLayer)
	case "WHERE":
		var n fnode
		n, err = p.or(false, false)
		st.where = n.f
		return "AND, OR, " + expClause, err
	case "HAVING":
		p.aliases = map[string]expr{}
		for _, v := range st.values {
			if v.alias != "" {
				p.aliases[v.alias] = v.x
			}
		}
		var n fnode
		n, err = p.or(true, false)
		p.aliases = nil
		st.having = n.f
		return "AND, OR, " + expClause, err
	case "TOP":
		st.top, err = p.integer(p.next(), 1, "a positive integer")
		return expClause, err
	case "SINCE":
		st.since, err = p.time()
	case "UNTIL":
		st.until, err = p.time()
	}
	return expClause, err
}

var reserved = []string{"AS", "AND", "OR", "NOT", "IN", "TOTAL"}

// unknown describes t as an unknown name of the given kind; for a keyword or a token that is
// no name it returns "", which makes errorAt describe the token as unexpected.
func unknown(t token, what string) string {
	for _, r := range reserved {
		if isKeyword(t, r) {
			return ""
		}
	}
	if t.kind == tokIdent && clauseOf(t) == "" {
		return "unknown " + what + " " + strconv.Quote(t.text)
	}
	return ""
}

// integer reads t as a whole number of at least minimum.
func (p *parser) integer(t token, minimum int64, expected string) (int64, error) {
	if t.kind != tokNumber || !allDigits(t.text) {
		return 0, p.errorAt(t, "", expected)
	}
	n, err := strconv.ParseInt(t.text, 10, 64)
	if err != nil {
		return 0, p.errorAt(t, "number too large", expected)
	}
	if n < minimum {
		return 0, p.errorAt(t, "number too small", expected)
	}
	return n, nil
}

// time parses the operand of SINCE or UNTIL.
func (p *parser) time() (*timeSpec, error) {
	t := p.next()
	switch t.kind {
	case tokNow:
		ts := &timeSpec{relative: true}
		if s := p.peek(); s.kind == tokPlus || s.kind == tokMinus {
			p.next()
			n, err := p.integer(p.next(), 0, "a number of seconds")
			if err != nil {
				return nil, err
			}
			if s.kind == tokMinus {
				n = -n
			}
			ts.seconds = n
		}
		return ts, nil
	case tokMinus:
		n, err := p.integer(p.next(), 0, "a number of seconds")
		return &timeSpec{seconds: -n}, err
	}
	n, err := p.integer(t, 0, expTime)
	return &timeSpec{seconds: n}, err
}

// values parses the comma-separated values and returns what may follow the last one.
func (p *parser) values(st *Statement) (string, error) {
	for {
		if isKeyword(p.peek(), "total") {
			p.next()
		}
		x, err := p.expr()
		if err != nil {
			return "", err
		}
		v := value{x: x}
		more := "\",\", AS, an operator (+, -, *, /), " + expClause
		if isKeyword(p.peek(), "AS") {
			p.next()
			t := p.next()
			if t.kind != tokString {
				return "", p.errorAt(t, "", "an alias in quotes (\"name\")")
			}
			for _, o := range st.values {
				if o.alias == t.text {
					return "", p.errorAt(t, "alias "+strconv.Quote(t.text)+" given twice", "an alias not used before")
				}
			}
			v.alias = t.text
			more = "\",\", " + expClause
		}
		st.values = append(st.values, v)
		if p.peek().kind != tokComma {
			return more, nil
		}
		p.next()
	}
}

// by parses the keys of BY.
func (p *parser) by(st *Statement) error {
	for {
		t := p.next()
		k, err := p.key(t)
		if err != nil {
			return err
		}
		for _, o := range st.keys {
			if o.kind == k.kind {
				return p.errorAt(t, "key "+keyKinds[k.kind].name+" given twice", "a key not given before in BY")
			}
		}
		st.keys = append(st.keys, k)
		if p.peek().kind != tokComma {
			return nil
		}
		p.next()
	}
}

func (p *parser) key(t token) (key, error) {
	if t.kind != tokIdent {
		return key{}, p.errorAt(t, "", expKey)
	}
	if strings.EqualFold(t.text, "time") {
		if l := p.next(); l.kind != tokLParen {
			return key{}, p.errorAt(l, "", "\"(\" (time(N) groups by N seconds)")
		}
		const expected = "a number of seconds (1 to " + maxBucketText + ")"
		t := p.next()
		n, err := p.integer(t, 1, expected)
		if err != nil {
			return key{}, err
		}
		if n > maxBucket {
			return key{}, p.errorAt(t, "number too large", expected)
		}
		if r := p.next(); r.kind != tokRParen {
			return key{}, p.errorAt(r, "", "\")\"")
		}
		return key{kind: kTime, n: n}, nil
	}
	for i, k := range keyKinds {
		if keyKind(i) != kTime && strings.EqualFold(t.text, k.name) {
			p.noteLayer(keyKind(i), t)
			return key{kind: keyKind(i)}, nil
		}
	}
	if _, ok := metricByName(t.text); ok {
		return key{}, p.errorAt(t, t.text+" is a value, not a key", expKey)
	}
	return key{}, p.errorAt(t, unknown(t, "key"), expKey)
}

func metricByName(name string) (metric, bool) {
	for i, m := range metrics {
		if strings.EqualFold(name, m.name) {
			return metric(i), true
		}
	}
	return 0, false
}
