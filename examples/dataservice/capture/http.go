package capture

import (
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Bounds of the HTTP/1.x decoder (the package doc, "HTTP").
const (
	// HTTPMaxHeader is the most bytes of one header block (request or status line and header
	// lines) buffered while the block spans segments; a longer one is given up.
	HTTPMaxHeader = 4096
	// HTTPMaxPipeline is the most requests outstanding on one connection; one more gives the
	// connection up.
	HTTPMaxPipeline = 8
	// HTTPMaxBuffers is the most header buffers (HTTPMaxHeader bytes each) a table lends at once,
	// 8 MiB; a header block that spans segments when none is free is given up.
	HTTPMaxBuffers = 2048
)

// The states of one direction's parser.
const (
	hIdle      = iota // between messages: the next byte starts one
	hHeader           // in a header block
	hLength           // in a body of known length: rest bytes remain
	hChunkSize        // in a chunk-size line
	hChunkData        // in a chunk's data and its CRLF: rest bytes remain
	hTrailer          // in the trailer: lines until an empty one
	hClose            // in a body that ends with the connection (responses)
)

// httpConv is what the probe follows of an HTTP/1.x connection: each direction's parser and
// the requests awaiting their response, oldest first.
type httpConv struct {
	dir    [2]httpDir
	q      [HTTPMaxPipeline]httpReq
	qh, qn int
	// The response in progress: its status, and whether it answers no request seen.
	status uint16
	orphan bool
	// The connection's last host, and the hour for which it and the server's name were
	// found within their bounds: a connection's requests name the same host, mostly.
	host               string
	hostHour, nameHour int64
}

// httpDir is one direction's parser.
type httpDir struct {
	next     uint32 // the sequence number of the next byte expected
	synced   bool
	state    uint8
	rest     uint64 // bytes left in a body or chunk (with its CRLF)
	line     int    // bytes of the current chunk-size or trailer line
	digits   uint8  // hex digits of the chunk size read
	ext      bool   // in the chunk-size line's extension
	buf      *[HTTPMaxHeader]byte
	n        int   // bytes in buf
	first    int64 // ns: the message's first byte
	last     int64 // ns: its latest byte
	bytes    uint64
	pkts     uint64
	pktSeen  uint64 // the table's packet count when a packet last carried bytes of the message
	attached bool   // the request in progress is the queue's newest (client side)
}

// httpReq is a request seen and its progress.
type httpReq struct {
	method, host, path string
	last               int64 // ns: its latest byte
	bytes, pkts        uint64
	head, connect      bool
}

// http follows the HTTP/1.x of a TCP packet of c sent by side (0 client, 1 server), after the
// transport's tracking.
func (t *Table) http(c *conv, p *Packet, side int) {
	h := c.http
	if h == nil {
		if p.PayloadLen == 0 || len(p.Payload) == 0 {
			return
		}
		if side == 1 {
			if hasPrefix(p.Payload, "HTTP/1.") {
				t.stats.HTTPOrphans++ // a response to a request not seen
			}
			return
		}
		if !requestStart(p.Payload) {
			return
		}
		h = t.httpStart(c, p)
	}
	if p.Flags&FlagRST != 0 {
		t.httpClose(c)
		return
	}
	if p.PayloadLen > 0 {
		if ok, gap := t.httpSegment(c, h, p, side); !ok {
			t.httpGiveUp(c)
			// The segment after a gap may begin the next request: resynchronise on it.
			if gap && side == 0 && requestStart(p.Payload) {
				if ok, _ = t.httpSegment(c, t.httpStart(c, p), p, side); !ok {
					t.httpGiveUp(c)
				}
			}
			return
		}
	}
	if side == 1 && p.Flags&FlagFIN != 0 {
		t.httpClose(c)
	}
}

// httpStart begins following c as HTTP from p, the client's segment that starts a request.
func (t *Table) httpStart(c *conv, p *Packet) *httpConv {
	var h *httpConv
	if n := len(t.httpT.free); n > 0 {
		h = t.httpT.free[n-1]
		t.httpT.free = t.httpT.free[:n-1]
	} else {
		h = new(httpConv)
	}
	*h = httpConv{}
	h.dir[0].next, h.dir[0].synced = p.Seq, true
	if p.Flags&FlagACK != 0 { // what the client acknowledged is where the server's next response starts
		h.dir[1].next, h.dir[1].synced = p.Ack, true
	}
	c.http = h
	return h
}

// httpSegment runs the payload of p through side's parser; ok is false when the connection
// must be given up: gap when bytes before p are missing where they matter, or else a
// malformed or oversized message.
func (t *Table) httpSegment(c *conv, h *httpConv, p *Packet, side int) (ok, gap bool) {
	d := &h.dir[side]
	n := uint32(p.PayloadLen)
	if !d.synced {
		d.next, d.synced = p.Seq, true
	}
	b := p.Payload
	switch off := int32(d.next - p.Seq); {
	case off > 0: // begins with bytes seen before
		if uint32(off) >= n {
			return true, false
		}
		b = b[min(int(off), len(b)):]
		n -= uint32(off)
	case off < 0: // bytes missing before it
		if !t.httpSkip(c, h, side, uint64(-off), p.Time) {
			t.stats.HTTPGaps++
			return false, true
		}
	}
	d.next = p.Seq + uint32(p.PayloadLen)
	if !t.httpFeed(c, h, side, b, p.Time) {
		return false, false
	}
	if missing := uint64(n) - uint64(len(b)); missing > 0 && c.http == h { // cut by the snap length
		return t.httpSkip(c, h, side, missing, p.Time), false
	}
	return true, false
}

// httpSkip passes over n bytes of side's stream that the probe did not see: possible only in
// a body whose length is known or that ends with the connection.
func (t *Table) httpSkip(c *conv, h *httpConv, side int, n uint64, now int64) bool {
	d := &h.dir[side]
	switch {
	case d.state == hClose:
		d.bytes += n
		return true
	case (d.state == hLength || d.state == hChunkData) && n <= d.rest:
		d.bytes += n
		d.rest -= n
		if d.rest == 0 {
			if d.state == hLength {
				t.httpDone(c, h, side, now)
			} else {
				d.state, d.line, d.digits = hChunkSize, 0, 0
			}
		}
		return true
	}
	return false
}

// httpFeed runs b, the next bytes of side's stream, through its parser at time now.
func (t *Table) httpFeed(c *conv, h *httpConv, side int, b []byte, now int64) bool {
	d := &h.dir[side]
	for len(b) > 0 {
		if d.state == hIdle {
			d.state, d.first, d.bytes, d.pkts = hHeader, now, 0, 0
			if side == 1 {
				h.orphan = h.qn == 0
			}
		}
		if d.pktSeen != t.stats.Packets || d.pkts == 0 {
			d.pktSeen = t.stats.Packets
			d.pkts++
		}
		d.last = now
		used, done := len(b), false
		switch d.state {
		case hHeader:
			var ok bool
			if used, ok = t.httpHeader(c, h, side, b); !ok {
				return false
			}
		case hLength:
			used = int(min(uint64(len(b)), d.rest))
			d.rest -= uint64(used)
		case hChunkSize:
			end, ok := false, true
			if used, end, ok = d.chunkSizeLine(b); !ok {
				return false
			}
			if end && d.rest == 0 {
				d.state = hTrailer
			} else if end {
				d.state, d.rest = hChunkData, d.rest+2 // and its CRLF
			}
		case hChunkData:
			used = int(min(uint64(len(b)), d.rest))
			d.rest -= uint64(used)
			if d.rest == 0 {
				d.state, d.line, d.digits = hChunkSize, 0, 0
			}
		case hTrailer:
			used = lineEnd(b)
			d.line += used
			if d.line > HTTPMaxHeader {
				return false
			}
			if b[used-1] == '\n' {
				if d.line <= 2 { // the empty line: the message's end
					done = true
				}
				d.line = 0
			}
		}
		d.bytes += uint64(used)
		b = b[used:]
		if done || d.state == hLength && d.rest == 0 {
			t.httpDone(c, h, side, now)
		}
		if c.http != h { // given up (a tunnel, a protocol switched)
			return true
		}
	}
	if side == 0 && d.attached && d.state != hIdle {
		r := &h.q[(h.qh+h.qn-1)%HTTPMaxPipeline]
		r.last = now
	}
	return true
}

// httpDone ends the message side was sending, at time now.
func (t *Table) httpDone(c *conv, h *httpConv, side int, now int64) {
	d := &h.dir[side]
	d.state = hIdle
	if side == 0 {
		if d.attached {
			r := &h.q[(h.qh+h.qn-1)%HTTPMaxPipeline]
			r.last, r.bytes, r.pkts = now, d.bytes, d.pkts
			d.attached = false
		}
		return
	}
	if h.orphan {
		return
	}
	r := h.q[h.qh]
	h.qh, h.qn = (h.qh+1)%HTTPMaxPipeline, h.qn-1
	if h.qn == 0 { // the request was still coming: its end no longer matters
		h.dir[0].attached = false
	}
	t.httpEmit(c, &r, h.status, d)
	if r.connect && h.status/100 == 2 || h.status == 101 { // a tunnel or another protocol follows
		t.httpRelease(c)
	}
}

// httpClose ends c's HTTP at a reset, the server's FIN or the conversation's end: a response
// that ends with the connection ends there, and the requests still waiting are never answered.
func (t *Table) httpClose(c *conv) {
	h := c.http
	if h == nil {
		return
	}
	if d := &h.dir[1]; d.state != hIdle && d.state != hHeader {
		t.httpDone(c, h, 1, d.last)
	}
	if c.http == nil {
		return
	}
	for ; h.qn > 0; h.qn-- {
		t.httpEmit(c, &h.q[h.qh], 0, nil)
		t.stats.HTTPUnanswered++
		h.qh = (h.qh + 1) % HTTPMaxPipeline
	}
	t.httpRelease(c)
}

// httpGiveUp stops following c's HTTP: the requests waiting are dropped, counted.
func (t *Table) httpGiveUp(c *conv) {
	if c.http != nil {
		t.stats.HTTPGivenUp++
		t.httpRelease(c)
	}
}

// httpRelease returns c's HTTP state and its buffers to the table.
func (t *Table) httpRelease(c *conv) {
	h := c.http
	for i := range h.dir {
		if d := &h.dir[i]; d.buf != nil {
			t.httpT.putBuffer(d.buf)
			d.buf = nil
		}
	}
	t.httpT.free = append(t.httpT.free, h)
	c.http = nil
}

// httpEmit emits the record of request r; resp is the response's parser (its first and last
// byte), nil when r had no response.
func (t *Table) httpEmit(c *conv, r *httpReq, status uint16, resp *httpDir) {
	rec := Record{Time: t.sliceStart / 1e9, Protocol: ProtoTCP, Layer: records.LayerHTTP,
		Client: Side{IP: c.rec.Client.IP, Port: c.rec.Client.Port, Bytes: r.bytes, Packets: r.pkts},
		Server: Side{IP: c.rec.Server.IP, Port: c.rec.Server.Port},
		HTTP:   records.HTTP{Method: r.method, Status: status, Host: r.host, Path: r.path}}
	if resp != nil {
		rec.Server.Bytes, rec.Server.Packets = resp.bytes, resp.pkts
		rec.SRT.Add(time.Duration(resp.first - r.last))
		rec.DTT.Add(time.Duration(resp.last - resp.first))
	}
	rec.ServerName = c.rec.ServerName
	if rec.ServerName == "" {
		rec.ServerName = t.names.lookup(rec.Server.IP)
	}
	if h := c.http; h != nil && h.nameHour == rec.Time/3600+1 {
		// it fits: checked this hour
	} else if rec.ServerName != "" && !t.nameFits(rec.Time, rec.ServerName) {
		rec.ServerName = ""
		t.stats.NamesLeftOut++
	} else if h != nil {
		h.nameHour = rec.Time/3600 + 1
	}
	t.stats.HTTPRecords++
	t.emit(rec)
}
