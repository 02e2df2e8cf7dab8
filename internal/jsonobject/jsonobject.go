// Package jsonobject reads a JSON object into its members without decoding their values: the
// one-pass scanner the HTTP binding reads bodies with, and MCP and JSON-RPC their messages;
// and encodes the answers both write (Encode).
package jsonobject

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"unicode/utf8"
)

// maxJSONDepth is how deeply arrays and objects may nest in a body, encoding/json's own limit:
// a body it would refuse is refused here too.
const maxJSONDepth = 10000

// Read reads b, a JSON object, into args: each member's name unquoted and its value as
// written, without the white space around it, copied out of b in one allocation when clone is
// set (else pointing into b); a name given twice keeps its last value. It accepts exactly what [json.Valid] accepts and fills args as
// [json.Unmarshal] into a map[string]json.RawMessage does (FuzzReadObject holds it to that),
// but in one pass over b without decoding the values: a large argument, such as the array of
// records of a data service's ingest, costs one scan here and its own decoding in the
// function. It returns false, leaving args unchanged, when b is not a valid JSON object.
func Read(b []byte, args map[string]json.RawMessage, clone bool) bool {
	var buf [8]member
	members, ok := scan(b, buf[:0])
	if !ok {
		return false
	}
	values := b
	if clone {
		values = bytes.Clone(b)
	}
	for _, m := range members {
		args[unquote(m.name)] = values[m.start:m.end:m.end]
	}
	return true
}

// Member is one member of an object that ReadMembers read.
type Member struct {
	Name  string
	Value json.RawMessage
}

// Members are the members of an object in the order written.
type Members []Member

// Get returns the value of the member name (its last, when it is given twice, as Read), or nil.
// It looks through every member: it is for the few members of a message's envelope.
func (ms Members) Get(name string) json.RawMessage {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Name == name {
			return ms[i].Value
		}
	}
	return nil
}

// ReadMembers reads b, a JSON object, as Read does, appending its members to ms (their values
// point into b): a caller that keeps ms in an array of its own reads a small object without
// a map. It returns false when b is not a valid JSON object.
func ReadMembers(b []byte, ms Members) (Members, bool) {
	var buf [8]member
	members, ok := scan(b, buf[:0])
	if !ok {
		return ms, false
	}
	for _, m := range members {
		ms = append(ms, Member{unquote(m.name), b[m.start:m.end:m.end]})
	}
	return ms, true
}

// member is where a member of an object is: its name quoted, and its value's offsets.
type member struct {
	name       []byte
	start, end int
}

// scan appends the members of b, a JSON object, to members; it reports false when b is not a
// valid JSON object.
func scan(b []byte, members []member) ([]member, bool) {
	i, last, ok := first(b)
	for ok && !last {
		var m member
		if m, i, last, ok = next(b, i); ok {
			members = append(members, m)
		}
	}
	if !ok || skipSpace(b, i) != len(b) {
		return nil, false
	}
	return members, true
}

// Each calls each with the name (quoted, as written) and the value (as written, without the
// white space around it) of every member of b, in order, as it scans b, and reports whether b
// is a valid JSON object, as Read does. A false may come after some calls: act on what each
// saw once Each returned true. It allocates nothing, so that an object of millions of members
// a caller has no use for costs one pass over its bytes.
func Each(b []byte, each func(name, value []byte)) bool {
	i, last, ok := first(b)
	for ok && !last {
		var m member
		if m, i, last, ok = next(b, i); ok {
			each(m.name, b[m.start:m.end:m.end])
		}
	}
	return ok && skipSpace(b, i) == len(b)
}

// Elements calls each with every element of b, a JSON array (as written, without the white
// space around it), in order, as it scans b, until each returns false. It reports whether b,
// as far as it was read, is valid JSON: an array read whole, or stopped by each. Like Each,
// it allocates nothing.
func Elements(b []byte, each func(value []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	if i = skipSpace(b, i+1); i < len(b) && b[i] == ']' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		j, ok := scanValue(b, i, 1)
		if !ok {
			return false
		}
		if !each(b[i:j:j]) {
			return true
		}
		switch i = skipSpace(b, j); {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == ']':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// first reads the opening of the object b: the offset of its first member, or, for an empty
// object (last), the offset after its '}'.
func first(b []byte) (i int, last, ok bool) {
	i = skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, false, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true, true
	}
	return i, false, true
}

// next reads the member of b at i and returns it, and the offset of the next member, or, after
// the last (last), the offset after the object's '}'.
func next(b []byte, i int) (m member, j int, last, ok bool) {
	end, ok := scanString(b, i)
	if !ok {
		return m, 0, false, false
	}
	m.name = b[i:end]
	if m.start, ok = colon(b, end); !ok {
		return m, 0, false, false
	}
	if m.end, ok = scanValue(b, m.start, 1); !ok {
		return m, 0, false, false
	}
	j = skipSpace(b, m.end)
	switch {
	case j < len(b) && b[j] == ',':
		return m, skipSpace(b, j+1), false, true
	case j < len(b) && b[j] == '}':
		return m, j + 1, true, true
	}
	return m, 0, false, false
}

// unquote returns the string a valid JSON string literal holds, as encoding/json decodes it.
func unquote(q []byte) string {
	s := q[1 : len(q)-1]
	for _, c := range s {
		if c == '\\' || c >= utf8.RuneSelf {
			var out string
			_ = json.Unmarshal(q, &out) // valid: escapes and invalid UTF-8 decoded as json does
			return out
		}
	}
	return String(s)
}

// String returns string(s), without allocating when s is one of the names and values every
// JSON-RPC and MCP message repeats (members of the envelope, of params and of _meta, the
// frequent methods): a call reads several of them, each once per call.
func String(s []byte) string {
	switch string(s) { // compiled to comparisons: no conversion
	case "jsonrpc":
		return "jsonrpc"
	case "id":
		return "id"
	case "method":
		return "method"
	case "params":
		return "params"
	case "name":
		return "name"
	case "arguments":
		return "arguments"
	case "_meta":
		return "_meta"
	case "progressToken":
		return "progressToken"
	case "uri":
		return "uri"
	case "cursor":
		return "cursor"
	case "taskId":
		return "taskId"
	case "task":
		return "task"
	case "requestState":
		return "requestState"
	case "inputResponses":
		return "inputResponses"
	case "io.modelcontextprotocol/protocolVersion":
		return "io.modelcontextprotocol/protocolVersion"
	case "io.modelcontextprotocol/clientCapabilities":
		return "io.modelcontextprotocol/clientCapabilities"
	case "io.modelcontextprotocol/logLevel":
		return "io.modelcontextprotocol/logLevel"
	case "tools/call":
		return "tools/call"
	case "tools/list":
		return "tools/list"
	case "resources/read":
		return "resources/read"
	case "prompts/get":
		return "prompts/get"
	case "2026-07-28":
		return "2026-07-28"
	case "2025-11-25":
		return "2025-11-25"
	}
	return string(s)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanKey reads a member's name, the ':' after it and the white space after that; it returns
// the offset of the member's value.
func scanKey(b []byte, i int) (int, bool) {
	i, ok := scanString(b, i)
	if !ok {
		return 0, false
	}
	return colon(b, i)
}

// colon reads the ':' after a member's name, with the white space around it; it returns the
// offset of the member's value.
func colon(b []byte, i int) (int, bool) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return 0, false
	}
	return skipSpace(b, i+1), true
}

// scanValue returns the offset just past the valid JSON value that starts at b[i]; depth is
// how many containers hold it.
func scanValue(b []byte, i, depth int) (int, bool) {
	var buf [32]byte
	open := buf[:0] // the containers open inside the value: '{' or '['
	var ok bool
	for {
		if i >= len(b) {
			return 0, false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if depth+len(open) >= maxJSONDepth {
				return 0, false
			}
			j := skipSpace(b, i+1)
			if j < len(b) && b[j] == c+2 { // '}' and ']' follow '{' and '[' by two
				i, ok = j+1, true
				break
			}
			open = append(open, c)
			if c == '{' {
				if j, ok = scanKey(b, j); !ok {
					return 0, false
				}
			}
			i = j
			continue
		case c == '"':
			i, ok = scanString(b, i)
		case c == '-' || '0' <= c && c <= '9':
			i, ok = scanNumber(b, i)
		case c == 't':
			i, ok = literal(b, i, "true")
		case c == 'f':
			i, ok = literal(b, i, "false")
		case c == 'n':
			i, ok = literal(b, i, "null")
		default:
			return 0, false
		}
		if !ok {
			return 0, false
		}
		// After a value: close the containers it ends, up to the next ',' or the end.
		for {
			if len(open) == 0 {
				return i, true
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			top := open[len(open)-1]
			if b[i] == top+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return 0, false
			}
			i = skipSpace(b, i+1)
			if top == '{' {
				if i, ok = scanKey(b, i); !ok {
					return 0, false
				}
			}
			break
		}
	}
}

// inString marks the bytes that may stand in a JSON string as they are: not '"', '\\' or a
// control character. Bytes of invalid UTF-8 may, as encoding/json's scanner has it.
var inString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString returns the offset just past the string literal at b[i].
func scanString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for i++; i < len(b); i++ {
		for i+8 <= len(b) && special8(binary.LittleEndian.Uint64(b[i:]), false) == 0 {
			i += 8
		}
		for i < len(b) && inString[b[i]] {
			i++
		}
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case '"':
			return i + 1, true
		case '\\':
			i++
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return 0, false
				}
				i += 4
			default:
				return 0, false
			}
		default: // a control character
			return 0, false
		}
	}
	return 0, false
}

// special8 marks, in the high bit of each of the 8 bytes of x, those that may not stand in a
// string as they are ('"', '\\', a control character) and, when nonASCII, the bytes past
// ASCII too: 0 when none is. It is exact as a whole (0 or not), not byte by byte, and reads 8
// bytes at a time where the loops over a table read one.
func special8(x uint64, nonASCII bool) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := x^(ones*'"'), x^(ones*'\\')
	m := (x-ones*0x20)&^x | (q-ones)&^q | (bs-ones)&^bs
	if nonASCII {
		m |= x
	}
	return m & highs
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanNumber returns the offset just past the number at b[i]: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func scanNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

func literal(b []byte, i int, word string) (int, bool) {
	if !bytes.HasPrefix(b[i:], []byte(word)) {
		return 0, false
	}
	return i + len(word), true
}
