package capture

import (
	"fmt"
	"net/netip"
	"testing"
	"unsafe"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// httpPeer sends the segments of one side of a test connection.
type httpPeer struct {
	tbl      *Table
	src, dst netip.Addr
	sp, dp   uint16
	seq      *uint32
	ack      *uint32
	now      *int64
}

func (s httpPeer) send(flags uint8, payload []byte) {
	*s.now += 1e6
	p := Packet{Time: *s.now, Src: s.src, Dst: s.dst, Protocol: ProtoTCP, SrcPort: s.sp, DstPort: s.dp,
		Flags: flags | FlagACK, Seq: *s.seq, Ack: *s.ack, Window: 100, PayloadLen: len(payload), Payload: payload,
		Len: 40 + len(payload)}
	s.tbl.Packet(&p)
	*s.seq += uint32(len(payload))
}

// httpPair returns the client and server of a connection from client port port.
func httpPair(tbl *Table, port uint16, now *int64) (httpPeer, httpPeer) {
	cs, ss := new(uint32), new(uint32)
	*cs, *ss = 1000, 5000
	c, s := netip.MustParseAddr("10.9.0.1"), netip.MustParseAddr("10.9.0.2")
	return httpPeer{tbl, c, s, port, 80, cs, ss, now}, httpPeer{tbl, s, c, 80, port, ss, cs, now}
}

// checkHTTPBounds fails t when a conversation's HTTP state passes its bounds.
func checkHTTPBounds(t *testing.T, tbl *Table) {
	t.Helper()
	if tbl.httpT.lent > HTTPMaxBuffers || tbl.httpT.lent < 0 || len(tbl.httpT.free) > tbl.cfg.MaxConversations {
		t.Fatalf("%d header buffers lent, %d states free", tbl.httpT.lent, len(tbl.httpT.free))
	}
	lent := 0
	for i := tbl.head; i >= 0; i = tbl.convs.at(i).next {
		h := tbl.convs.at(i).http
		if h == nil {
			continue
		}
		if h.qn < 0 || h.qn > HTTPMaxPipeline {
			t.Fatalf("%d requests waiting", h.qn)
		}
		for _, d := range h.dir {
			if d.n > HTTPMaxHeader || d.n > 0 && d.buf == nil || d.line > HTTPMaxHeader {
				t.Fatalf("%d header bytes buffered, line of %d", d.n, d.line)
			}
			if d.buf != nil {
				lent++
			}
		}
	}
	if lent != tbl.httpT.lent {
		t.Fatalf("%d buffers held, %d lent", lent, tbl.httpT.lent)
	}
}

func TestHTTPMemoryBounds(t *testing.T) {
	t.Parallel()
	if n := unsafe.Sizeof(httpConv{}); n > 900 {
		t.Errorf("an HTTP connection's state takes %d bytes; the package doc says about 900", n)
	}
	// Header blocks that span segments on HTTPMaxBuffers connections take every buffer; the
	// next one is given up, counted, and the bound holds.
	tbl := NewTable(Config{}, func(Record) {})
	now := int64(1700000040e9)
	for i := range HTTPMaxBuffers + 1 {
		c, _ := httpPair(tbl, uint16(10000+i), &now)
		c.send(FlagPSH, []byte("GET /a HTTP/1.1\r\nHost: b.example\r\n"))
	}
	if st := tbl.Stats(); st.HTTPTooLong != 1 || tbl.httpT.lent != HTTPMaxBuffers {
		t.Errorf("%d too long, %d buffers lent; want 1 and %d", st.HTTPTooLong, tbl.httpT.lent, HTTPMaxBuffers)
	}
	checkHTTPBounds(t, tbl)
	tbl.Flush() // every buffer comes back
	if tbl.httpT.lent != 0 || len(tbl.httpT.bufs) != HTTPMaxBuffers {
		t.Errorf("after the flush %d buffers lent, %d free", tbl.httpT.lent, len(tbl.httpT.bufs))
	}
}

// TestHTTPHeaderBound sends header blocks of HTTPMaxHeader bytes and one more across two
// segments: the first is followed, the second given up.
func TestHTTPHeaderBound(t *testing.T) {
	t.Parallel()
	for _, extra := range []int{0, 1} {
		var recs []Record
		tbl := NewTable(Config{}, func(r Record) {
			if r.Layer == records.LayerHTTP {
				recs = append(recs, r)
			}
		})
		now := int64(1700000040e9)
		c, s := httpPair(tbl, 40000, &now)
		start := "GET /bound HTTP/1.1\r\nHost: b.example\r\nX-Pad: "
		pad := make([]byte, HTTPMaxHeader+extra-len(start)-4)
		for i := range pad {
			pad[i] = 'p'
		}
		block := start + string(pad) + "\r\n\r\n"
		c.send(FlagPSH, []byte(block[:100]))
		c.send(FlagPSH, []byte(block[100:]))
		s.send(FlagPSH, []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
		tbl.Flush()
		st := tbl.Stats()
		if extra == 0 && (len(recs) != 1 || recs[0].HTTP.Status != 200 || recs[0].Client.Bytes != HTTPMaxHeader || st.HTTPTooLong != 0) {
			t.Errorf("a header block of %d bytes: records %+v, %d too long", len(block), recs, st.HTTPTooLong)
		}
		if extra == 1 && (len(recs) != 0 || st.HTTPTooLong != 1 || st.HTTPGivenUp != 1) {
			t.Errorf("a header block of %d bytes: records %+v, %d too long", len(block), recs, st.HTTPTooLong)
		}
	}
}

func TestFoldPath(t *testing.T) {
	t.Parallel()
	long := "/" + string(make([]byte, 600))
	for in, want := range map[string]string{
		"/":              "/",
		"/api/users/42":  "/api/users/{n}",
		"/api/users/42/": "/api/users/{n}/",
		"/orders/550E8400-e29b-41d4-a716-446655440000/items/7": "/orders/{id}/items/{n}",
		"/commit/9fceb02d0ae598e95dc970b74767f19372d61af8":     "/commit/{id}",
		"/deadbeef":                   "/deadbeef", // no digit: a word
		"/files/aGVsbG8gd29ybGQ9PQ1x": "/files/{id}",
		"/static/app-2024-summer.css": "/static/app-2024-summer.css",
		"/2024-annual-report-summary": "/2024-annual-report-summary", // one case only: words
		"/caf\xc3\xa9 menu":           "/caf%C3%A9%20menu",
		long:                          "/" + string(make([]byte, 0)),
	} {
		got := string(foldPath(make([]byte, 0, records.MaxPathLen), []byte(in)))
		if in == long {
			if len(got) != records.MaxPathLen {
				t.Errorf("a path of %d bytes folded to %d, want %d", len(in), len(got), records.MaxPathLen)
			}
			continue
		}
		if got != want {
			t.Errorf("foldPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzHTTP runs arbitrary bytes as the segments of two HTTP connections, either side, with
// gaps, FINs and resets: the probe must never panic, and its HTTP state stays within its
// bounds whatever it is sent (checkHTTPBounds); every record's strings within theirs.
func FuzzHTTP(f *testing.F) {
	seg := func(ctl byte, s string) []byte { return append([]byte{ctl, byte(len(s))}, s...) }
	join := func(b ...[]byte) []byte {
		var o []byte
		for _, x := range b {
			o = append(o, x...)
		}
		return o
	}
	f.Add(join(seg(0, "GET /a/1?x HTTP/1.1\r\nHost: A.example:80\r\n\r\n"), seg(1, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc")))
	f.Add(join(seg(0, "POST /u HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.0\r\n\r\n"),
		seg(1, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n"), seg(1, "10\r\n0123456789abcdef\r\n0\r\n\r\n"),
		seg(1, "HTTP/1.0 200 OK\r\n\r\nbody"), seg(1|8, "")))
	f.Add(join(seg(0, "CONNECT h:443 HTTP/1.1\r\n\r\n"), seg(1, "HTTP/1.1 200 OK\r\n\r\n"), seg(0, "\x16\x03\x01")))
	f.Add(join(seg(0, "GET /x HTTP/1.1\r\nCookie: "), seg(0|4, "c"), seg(2, "GET /y HTTP/1.1\r\n\r\n"), seg(1|16, "")))
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs []Record
		tbl := NewTable(Config{MaxConversations: 4, MaxHTTPPaths: 3}, func(r Record) { recs = append(recs, r) })
		now := int64(1700000040e9)
		var peers [2][2]httpPeer
		peers[0][0], peers[0][1] = httpPair(tbl, 40000, &now)
		peers[1][0], peers[1][1] = httpPair(tbl, 40001, &now)
		for i := 0; len(data) >= 2 && i < 200; i++ {
			// ctl: bit 0 the server sends, bit 1 the second connection, bit 2 bytes lost
			// first, bit 3 FIN, bit 4 RST.
			ctl, n := data[0], min(int(data[1]), len(data)-2)
			payload := data[2 : 2+n]
			data = data[2+n:]
			p := peers[ctl>>1&1][ctl&1]
			if ctl&4 != 0 {
				*p.seq += uint32(n) + 1
			}
			var flags uint8
			if ctl&8 != 0 {
				flags |= FlagFIN
			}
			if ctl&16 != 0 {
				flags |= FlagRST
			}
			p.send(flags, payload)
			checkHTTPBounds(t, tbl)
		}
		tbl.Flush()
		checkHTTPBounds(t, tbl)
		if tbl.httpT.lent != 0 {
			t.Fatalf("%d buffers lent after the flush", tbl.httpT.lent)
		}
		for _, r := range recs {
			if h := r.HTTP; len(h.Method) > records.MaxMethodLen || len(h.Host) > records.MaxHostLen || len(h.Path) > records.MaxPathLen {
				t.Fatalf("record %s", fmt.Sprintf("%+v", h))
			}
		}
	})
}
