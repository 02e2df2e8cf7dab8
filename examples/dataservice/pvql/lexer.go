package pvql

import (
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tokenKind tells what a token is.
type tokenKind int

const (
	tokEOF     tokenKind = iota
	tokIllegal           // a character sequence that is no token; text holds the reason
	tokIdent             // a name: keyword, field, layer, protocol or bare application name
	tokNumber            // 123, 1.5 or 1e9
	tokAddr              // an IPv4 or IPv6 address
	tokPrefix            // a CIDR prefix
	tokString            // a quoted string; text holds the unquoted value
	tokNow               // @now
	tokLParen
	tokRParen
	tokComma
	tokSemicolon
	tokPlus
	tokMinus
	tokStar
	tokSlash
	tokEq
	tokNe
	tokLt
	tokLe
	tokGt
	tokGe
)

// token is one lexical element; pos is its byte offset in the source.
type token struct {
	kind tokenKind
	text string
	pos  int
	end  int
}

// lex splits src into tokens. It never fails: a bad character sequence becomes a tokIllegal
// token, reported by the parser when it gets there. The last token is always tokEOF.
func lex(src string) []token {
	var toks []token
	i := 0
	for {
		for i < len(src) && isSpace(src[i]) {
			i++
		}
		if i >= len(src) {
			return append(toks, token{kind: tokEOF, pos: i, end: i})
		}
		t := lexOne(src, i)
		toks = append(toks, t)
		i = t.end
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ':'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

var operators = []struct {
	text string
	kind tokenKind
}{
	{"!=", tokNe}, {"<=", tokLe}, {">=", tokGe}, {"<", tokLt}, {">", tokGt}, {"=", tokEq},
	{"(", tokLParen}, {")", tokRParen}, {",", tokComma}, {";", tokSemicolon},
	{"+", tokPlus}, {"-", tokMinus}, {"*", tokStar}, {"/", tokSlash},
}

// lexOne reads the token that starts at src[i], which is not white space.
func lexOne(src string, i int) token {
	c := src[i]
	switch {
	case c == '"' || c == '\'':
		return lexString(src, i)
	case c == '@':
		j := i + 1
		for j < len(src) && isWordByte(src[j]) {
			j++
		}
		if strings.EqualFold(src[i+1:j], "now") {
			return token{kind: tokNow, text: src[i:j], pos: i, end: j}
		}
		return token{kind: tokIllegal, text: "unknown name " + strconv.Quote(src[i:max(j, i+1)]), pos: i, end: max(j, i+1)}
	case isWordByte(c):
		return lexWord(src, i)
	}
	for _, op := range operators {
		if strings.HasPrefix(src[i:], op.text) {
			return token{kind: op.kind, text: op.text, pos: i, end: i + len(op.text)}
		}
	}
	r, size := utf8.DecodeRuneInString(src[i:])
	return token{kind: tokIllegal, text: "unexpected character " + strconv.Quote(string(r)), pos: i, end: i + size}
}

// lexString reads a quoted string. A backslash makes the next character literal.
func lexString(src string, i int) token {
	q := src[i]
	var b strings.Builder
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			if j+1 < len(src) {
				j++
				b.WriteByte(src[j])
			}
		case q:
			return token{kind: tokString, text: b.String(), pos: i, end: j + 1}
		default:
			b.WriteByte(src[j])
		}
	}
	return token{kind: tokIllegal, text: "unterminated string", pos: i, end: len(src)}
}

// lexWord reads a run of letters, digits, '_', '.' and ':' and classifies it as a number, an
// address (extended to a CIDR prefix when "/bits" follows), or a name.
func lexWord(src string, i int) token {
	j := i
	for j < len(src) && isWordByte(src[j]) {
		j++
	}
	w := src[i:j]
	if isNumber(w) {
		return token{kind: tokNumber, text: w, pos: i, end: j}
	}
	if m, ok := strings.CutSuffix(strings.ToLower(w), "e"); ok && isNumber(m) && j < len(src) && (src[j] == '+' || src[j] == '-') {
		j++ // the sign of an exponent: 1e+9, 2.5e-3
		for j < len(src) && isWordByte(src[j]) {
			j++
		}
		w = src[i:j]
		if isNumber(w) {
			return token{kind: tokNumber, text: w, pos: i, end: j}
		}
	}
	if m, _, ok := strings.Cut(strings.ToLower(w), "e"); ok && isNumber(m) && !strings.Contains(w, ":") {
		return token{kind: tokIllegal, text: "invalid number " + strconv.Quote(w) + ": an exponent is e, an optional sign and digits (1e9, 2.5e-3)", pos: i, end: j}
	}
	if a, err := netip.ParseAddr(w); err == nil {
		if j < len(src) && src[j] == '/' && j+1 < len(src) && isDigit(src[j+1]) {
			k := j + 1
			for k < len(src) && isDigit(src[k]) {
				k++
			}
			if _, err := netip.ParsePrefix(src[i:k]); err != nil {
				return token{kind: tokIllegal, text: "invalid CIDR " + strconv.Quote(src[i:k]), pos: i, end: k}
			}
			return token{kind: tokPrefix, text: src[i:k], pos: i, end: k}
		}
		return token{kind: tokAddr, text: a.String(), pos: i, end: j}
	}
	if c := w[0]; (c < '0' || c > '9') && c != '.' && c != ':' && !strings.Contains(w, ":") {
		return token{kind: tokIdent, text: w, pos: i, end: j}
	}
	return token{kind: tokIllegal, text: "invalid number or address " + strconv.Quote(w), pos: i, end: j}
}

// isNumber reports whether w is digits with an optional fraction and an optional decimal
// exponent: 12, 1.5, 1e9, 2.5E-3.
func isNumber(w string) bool {
	if k := strings.IndexAny(w, "eE"); k >= 0 {
		exp := strings.TrimLeft(w[k+1:], "+-")
		if len(w[k+1:])-len(exp) > 1 || !allDigits(exp) {
			return false
		}
		w = w[:k]
	}
	intPart, frac, hasDot := strings.Cut(w, ".")
	return allDigits(intPart) && (!hasDot || allDigits(frac))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
