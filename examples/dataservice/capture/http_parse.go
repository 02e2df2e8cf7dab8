package capture

import (
	"bytes"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// requestStart says whether b begins with an HTTP/1.x request line: a method token (capital
// letters, at most records.MaxMethodLen), a space, a target, a space and HTTP/1.0 or
// HTTP/1.1. A line longer than b is taken when its target begins as one does ('/', "http",
// '*'), so that a long URL split across segments is followed.
func requestStart(b []byte) bool {
	i := 0
	for i < len(b) && i <= records.MaxMethodLen && (b[i] >= 'A' && b[i] <= 'Z' || b[i] == '-' || b[i] == '_') {
		i++
	}
	if i == 0 || i > records.MaxMethodLen || i+1 >= len(b) || b[i] != ' ' {
		return false
	}
	e := bytes.IndexByte(b, '\n')
	if e < 0 {
		return b[i+1] == '/' || b[i+1] == '*' || hasPrefix(b[i+1:], "http")
	}
	line := bytes.TrimSuffix(b[:e], []byte{'\r'})
	return len(line) > i+10 && hasPrefix(line[len(line)-9:], " HTTP/1.") && (line[len(line)-1] == '0' || line[len(line)-1] == '1')
}

func hasPrefix(b []byte, s string) bool { return len(b) >= len(s) && string(b[:len(s)]) == s }

// lineEnd is the length of b's first line with its LF, or len(b) when it has none.
func lineEnd(b []byte) int {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return i + 1
	}
	return len(b)
}

// chunkSizeLine reads b's bytes of a chunk-size line (hex digits, then an optional extension,
// CRLF) into d.rest; it says how many bytes it used, whether the line ended, and false when
// the line is malformed or too long.
func (d *httpDir) chunkSizeLine(b []byte) (int, bool, bool) {
	for i, ch := range b {
		d.line++
		if d.line > 1024 {
			return i, false, false
		}
		var v byte
		switch {
		case ch == '\n':
			ok := d.digits > 0
			d.line, d.digits, d.ext = 0, 0, false
			return i + 1, true, ok
		case d.ext:
			continue
		case '0' <= ch && ch <= '9':
			v = ch - '0'
		case 'a' <= ch && ch <= 'f':
			v = ch - 'a' + 10
		case 'A' <= ch && ch <= 'F':
			v = ch - 'A' + 10
		case ch == ';' || ch == ' ' || ch == '\t' || ch == '\r':
			d.ext = true
			continue
		default:
			return i, false, false
		}
		if d.digits == 15 {
			return i, false, false
		}
		d.digits++
		d.rest = d.rest<<4 | uint64(v)
	}
	return len(b), false, true
}

// httpHeader reads b's bytes of the header block side is sending, buffering them while the
// block spans segments; at its end it reads the request or response. It returns the bytes it
// used, and false when the message is given up.
func (t *Table) httpHeader(c *conv, h *httpConv, side int, b []byte) (int, bool) {
	d := &h.dir[side]
	var blk block
	used := -1
	if d.n == 0 {
		used = parseBlock(b, &blk)
	}
	if used < 0 {
		if d.buf == nil {
			if d.buf = t.httpT.buffer(); d.buf == nil {
				t.stats.HTTPTooLong++
				return 0, false
			}
		}
		old := d.n
		k := min(len(b), HTTPMaxHeader-d.n)
		d.n += copy(d.buf[d.n:], b[:k])
		e := parseBlock(d.buf[:d.n], &blk)
		if e < 0 {
			if d.n == HTTPMaxHeader {
				t.stats.HTTPTooLong++
				return 0, false
			}
			return k, true
		}
		used = max(e-old, 0)
	}
	ok := !blk.bad
	if ok && side == 0 {
		ok = t.httpRequest(h, &blk)
	} else if ok {
		ok = t.httpResponse(h, &blk)
	}
	if d.buf != nil {
		t.httpT.putBuffer(d.buf)
		d.buf, d.n = nil, 0
	}
	return used, ok
}

// block is what the probe reads of a header block: its start line's three parts (split at
// the first two spaces), the Host, and what delimits the body: chunked, or its length (-1
// when absent); bad when the start line is not one or Content-Length is malformed.
type block struct {
	a, b, c []byte
	host    []byte
	chunked bool
	length  int64
	bad     bool
}

// parseBlock reads the header block at b's start into blk, in one pass, and returns its
// length with its final empty line; -1 when it does not end in b.
func parseBlock(b []byte, blk *block) int {
	*blk = block{length: -1}
	for i, first := 0, true; ; first = false {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		line := b[i : i+j]
		i += j + 1
		if j > 0 && line[j-1] == '\r' {
			line = line[:j-1]
		}
		if first {
			blk.startLine(line)
			continue
		}
		if len(line) == 0 {
			return i
		}
		k := bytes.IndexByte(line, ':')
		if k <= 0 {
			continue
		}
		name, value := line[:k], bytes.TrimSpace(line[k+1:])
		switch len(name) {
		case 4:
			if blk.host == nil && bytes.EqualFold(name, []byte("host")) {
				blk.host = value
			}
		case 17:
			if bytes.EqualFold(name, []byte("transfer-encoding")) {
				blk.chunked = len(value) >= 7 && bytes.EqualFold(value[len(value)-7:], []byte("chunked"))
			}
		case 14:
			if bytes.EqualFold(name, []byte("content-length")) {
				blk.contentLength(value)
			}
		}
	}
}

func (blk *block) startLine(line []byte) {
	i := bytes.IndexByte(line, ' ')
	if i <= 0 {
		blk.bad = true
		return
	}
	blk.a, line = line[:i], line[i+1:]
	if j := bytes.IndexByte(line, ' '); j >= 0 {
		blk.b, blk.c = line[:j], line[j+1:]
	} else {
		blk.b = line
	}
}

func (blk *block) contentLength(v []byte) {
	if len(v) == 0 || len(v) > 18 {
		blk.bad = true
		return
	}
	var n int64
	for _, ch := range v {
		if ch < '0' || ch > '9' {
			blk.bad = true
			return
		}
		n = n*10 + int64(ch-'0')
	}
	blk.length = n
}

// httpRequest reads a request's header block and queues the request.
func (t *Table) httpRequest(h *httpConv, blk *block) bool {
	method, target, host := blk.a, blk.b, blk.host
	if len(method) > records.MaxMethodLen || len(target) == 0 || !hasPrefix(blk.c, "HTTP/1.") || h.qn == HTTPMaxPipeline {
		return false
	}
	path, authority := splitTarget(target)
	if authority != nil { // absolute-form or authority-form: the target names the host
		host = authority
	}
	r := &h.q[(h.qh+h.qn)%HTTPMaxPipeline]
	h.qn++
	hour := t.sliceStart / 1e9 / 3600
	*r = httpReq{method: internMethod(&t.httpT.strings, hour, method), host: t.httpHost(h, hour, host), path: t.httpPath(hour, path)}
	r.head, r.connect = r.method == "HEAD", r.method == "CONNECT"
	d := &h.dir[0]
	d.attached = true
	switch {
	case blk.chunked:
		d.state, d.rest, d.line, d.digits, d.ext = hChunkSize, 0, 0, 0, false
	case blk.length > 0:
		d.state, d.rest = hLength, uint64(blk.length)
	default:
		d.state, d.rest = hLength, 0
	}
	return true
}

// httpResponse reads a response's header block: an interim one (1xx but 101) is passed
// over; a final one answers the oldest request waiting.
func (t *Table) httpResponse(h *httpConv, blk *block) bool {
	code := blk.b
	if !hasPrefix(blk.a, "HTTP/1.") || len(code) != 3 {
		return false
	}
	status := uint16(0)
	for _, ch := range code {
		if ch < '0' || ch > '9' {
			return false
		}
		status = status*10 + uint16(ch-'0')
	}
	if status < 100 {
		return false
	}
	d := &h.dir[1]
	if status < 200 && status != 101 {
		d.state = hIdle // interim: the final response follows
		return true
	}
	if h.orphan {
		t.stats.HTTPOrphans++
	}
	h.status = status
	var req *httpReq
	if !h.orphan {
		req = &h.q[h.qh]
	}
	switch {
	case req != nil && (req.head || req.connect && status/100 == 2), status == 101, status == 204, status == 304:
		d.state, d.rest = hLength, 0
	case blk.chunked:
		d.state, d.rest, d.line, d.digits, d.ext = hChunkSize, 0, 0, 0, false
	case blk.length >= 0:
		d.state, d.rest = hLength, uint64(blk.length)
	default:
		d.state = hClose
	}
	return true
}

// splitTarget returns a request target's path without its query string, and the authority
// of an absolute-form ("http://host:port/path") or authority-form ("host:port") target.
func splitTarget(target []byte) (path, authority []byte) {
	switch {
	case target[0] == '/' || target[0] == '*':
		path = target
	case bytes.Contains(target, []byte("://")):
		rest := target[bytes.Index(target, []byte("://"))+3:]
		i := bytes.IndexByte(rest, '/')
		if i < 0 {
			return []byte("/"), rest
		}
		authority, path = rest[:i], rest[i:]
	default: // authority-form, CONNECT's
		return nil, target
	}
	if i := bytes.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	return path, authority
}
