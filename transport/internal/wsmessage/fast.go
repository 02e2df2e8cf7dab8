package wsmessage

import "encoding/json"

// parseFast reads a call message of the usual shape in one pass, without reflection:
// members id, call or stream, and args, each once, names and keys in plain ASCII without
// escapes, no null. It reports false for anything else, which Parse then reads with
// encoding/json; for a message it accepts, the two agree (FuzzParseCallFast checks it). The
// arguments' values are slices of data, which must not be modified afterwards.
func parseFast(data []byte) (Call, bool) {
	var c Call
	var haveID, haveName, haveArgs bool
	p := scan{data: data}
	if !p.byte('{') {
		return c, false
	}
	for {
		key, ok := p.plainString()
		if !ok || !p.byte(':') {
			return c, false
		}
		switch key {
		case "id":
			if haveID {
				return c, false
			}
			haveID = true
			p.space()
			if p.i < len(p.data) && p.data[p.i] == '"' {
				if c.ID, ok = p.plainString(); !ok || c.ID == "" {
					return c, false
				}
				break
			}
			raw, ok := p.value()
			if !ok || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
				return c, false
			}
			c.ID = string(raw)
		case "call", "stream":
			if haveName {
				return c, false
			}
			haveName, c.Stream = true, key == "stream"
			if c.Name, ok = p.plainString(); !ok {
				return c, false
			}
		case "args":
			if haveArgs || !p.args(&c) {
				return c, false
			}
			haveArgs = true
		default:
			return c, false
		}
		switch {
		case p.byte(','):
		case p.byte('}'):
			p.space()
			return c, p.i == len(p.data) && haveID && haveName && haveArgs
		default:
			return c, false
		}
	}
}

// scan reads JSON text from data at i.
type scan struct {
	data []byte
	i    int
}

func (p *scan) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// byte skips space and then b, reporting whether b was there.
func (p *scan) byte(b byte) bool {
	p.space()
	if p.i < len(p.data) && p.data[p.i] == b {
		p.i++
		return true
	}
	return false
}

// plainString reads a string of printable ASCII without escapes.
func (p *scan) plainString() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	start := p.i
	for ; p.i < len(p.data); p.i++ {
		switch b := p.data[p.i]; {
		case b == '"':
			s := string(p.data[start:p.i])
			p.i++
			return s, true
		case b < 0x20 || b == '\\' || b >= 0x80:
			return "", false
		}
	}
	return "", false
}

// value reads one JSON value (not null) and returns its text, checked with json.Valid.
func (p *scan) value() ([]byte, bool) {
	p.space()
	start, depth := p.i, 0
	for p.i < len(p.data) {
		switch b := p.data[p.i]; b {
		case '"':
			p.i++
			for p.i < len(p.data) && p.data[p.i] != '"' {
				if p.data[p.i] == '\\' {
					p.i++
				}
				p.i++
			}
			if p.i >= len(p.data) {
				return nil, false
			}
			p.i++
		case '{', '[':
			depth++
			p.i++
		case '}', ']':
			if depth == 0 {
				return p.done(start)
			}
			depth--
			p.i++
		case ',', ' ', '\t', '\r', '\n':
			if depth == 0 {
				return p.done(start)
			}
			p.i++
		default:
			p.i++
		}
		if depth == 0 && p.i > start && (p.data[p.i-1] == '"' || p.data[p.i-1] == '}' || p.data[p.i-1] == ']') {
			return p.done(start)
		}
	}
	return p.done(start)
}

func (p *scan) done(start int) ([]byte, bool) {
	raw := p.data[start:p.i]
	if len(raw) == 0 || string(raw) == "null" || !json.Valid(raw) {
		return nil, false
	}
	return raw[:len(raw):len(raw)], true
}

// args reads the args object into c.Args.
func (p *scan) args(c *Call) bool {
	if !p.byte('{') {
		return false
	}
	c.Args = make(map[string]json.RawMessage, 4)
	if p.byte('}') {
		return true
	}
	for {
		key, ok := p.plainString()
		if !ok || !p.byte(':') {
			return false
		}
		raw, ok := p.value()
		if !ok {
			return false
		}
		c.Args[key] = raw
		switch {
		case p.byte(','):
		case p.byte('}'):
			return true
		default:
			return false
		}
	}
}
