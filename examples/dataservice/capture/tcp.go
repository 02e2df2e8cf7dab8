package capture

import "time"

// Handshake states.
const (
	hsNone   = iota
	hsSYN    // the client's SYN seen
	hsSYNACK // the server's SYN-ACK seen
	hsDone   // the client's ACK of the SYN-ACK seen
)

// maxHoles is how many sequence gaps per direction the probe remembers; a gap forgotten
// when more open is counted, once filled, as a retransmission.
const maxHoles = 4

// defaultReorder is how soon a gap must be filled to count as reordering rather than a
// retransmission, when the sender's side has no RTT sample yet.
const defaultReorder = int64(3e6) // 3 ms

// tcpState is what the probe follows of a TCP conversation.
type tcpState struct {
	hs          uint8
	firstSYN    int64 // ns: the client's first SYN
	lastSYN     int64 // ns: its latest SYN
	lastSYNACK  int64 // ns: the server's latest SYN-ACK
	isn         [2]uint32
	dir         [2]direction // by side: 0 client, 1 server
	run         int8         // the side whose data came last: -1 none yet
	reqLast     int64        // ns: last packet of the request in progress
	respFirst   int64        // ns: first packet of the response in progress
	respLast    int64        // ns: its last packet
	inResponse  bool
	fins        uint8 // sides that sent a FIN, as a bit set
	initialized bool
}

// direction is what the probe follows of one side's byte stream.
type direction struct {
	started bool
	next    uint32 // the sequence number after the highest byte seen
	holes   [maxHoles]hole
	nholes  int
	// An RTT sample in flight: this side's latest data, ending at pendEnd and seen at
	// pendTime, waits for the other side's pure ACK covering it.
	pending  bool
	pendEnd  uint32
	pendTime int64
	minRTT   int64 // ns: the smallest RTT sample of this side; 0 when none
}

// hole is a range of sequence numbers the probe saw skipped, and when.
type hole struct {
	start, end uint32
	at         int64
}

// seqLess says a < b in sequence space.
func seqLess(a, b uint32) bool { return int32(a-b) < 0 }

// tcp follows one TCP packet sent by side (0 client, 1 server).
func (t *Table) tcp(c *conv, p *Packet, side int) {
	s := &c.tcp
	if !s.initialized {
		s.initialized, s.run = true, -1
	}
	sender := &c.rec.Client
	if side == 1 {
		sender = &c.rec.Server
	}
	if p.Flags&FlagRST != 0 {
		c.rec.Resets++
		c.closeResponse()
		if c.closed == 0 {
			c.closed = p.Time
		}
		return
	}
	if p.Window == 0 && p.Flags&FlagSYN == 0 {
		sender.ZeroWindows++
	}
	if p.Flags&FlagSYN != 0 {
		t.syn(c, p, side)
		return
	}
	// An ACK settles the other side's RTT sample in flight, if it is a pure ACK (one with
	// data may have waited for the application) covering the sample's data.
	if p.Flags&FlagACK != 0 {
		if s.hs == hsSYNACK && side == 0 && p.Ack == s.isn[1]+1 {
			s.hs = hsDone
			c.rec.Client.RTT.Add(time.Duration(p.Time - s.lastSYNACK))
			c.rec.CT.Add(time.Duration(p.Time - s.firstSYN))
			t.noteRTT(&s.dir[0], p.Time-s.lastSYNACK)
		}
		o := &s.dir[1-side]
		if o.pending && !seqLess(p.Ack, o.pendEnd) {
			o.pending = false
			if p.PayloadLen == 0 {
				sender.RTT.Add(time.Duration(p.Time - o.pendTime))
				t.noteRTT(&s.dir[side], p.Time-o.pendTime)
			}
		}
	}
	n := uint32(p.PayloadLen)
	if p.Flags&FlagFIN != 0 {
		n++
	}
	if n == 0 {
		return
	}
	retrans := s.dir[side].segment(p.Seq, p.Seq+n, p.Time)
	if retrans {
		sender.Retrans++
	}
	if p.PayloadLen > 0 {
		if !c.named && side == 0 {
			c.named = true
			if name := serverName(p.Payload); name != "" {
				c.rec.ServerName = name
			}
			t.startLayers(c, p)
		}
		if c.dnsTCP != nil || c.tls != nil {
			t.layerSegment(c, p, side)
		}
		s.data(c, side, p.Time, retrans, p.Seq+n)
	}
	if p.Flags&FlagFIN != 0 {
		c.closeResponse()
		s.fins |= 1 << side
		if s.fins == 3 && c.closed == 0 {
			c.closed = p.Time
		}
	}
}

// noteRTT keeps the smallest RTT sample of a side, half of which is the time within which a
// filled gap is taken for reordering.
func (t *Table) noteRTT(d *direction, rtt int64) {
	if rtt > 0 && (d.minRTT == 0 || rtt < d.minRTT) {
		d.minRTT = rtt
	}
}

// syn follows a SYN or SYN-ACK.
func (t *Table) syn(c *conv, p *Packet, side int) {
	s := &c.tcp
	d := &s.dir[side]
	if p.Flags&FlagACK == 0 { // SYN: side is the client
		if s.hs >= hsSYN && p.Seq == s.isn[0] {
			c.rec.Client.Retrans++
		} else if s.hs == hsNone {
			s.firstSYN = p.Time
		}
		if s.hs <= hsSYN {
			s.hs, s.isn[0], s.lastSYN = hsSYN, p.Seq, p.Time
		}
		d.started, d.next = true, p.Seq+1
		return
	}
	// SYN-ACK: side is the server.
	switch {
	case s.hs == hsSYN && p.Ack == s.isn[0]+1:
		s.hs, s.isn[1], s.lastSYNACK = hsSYNACK, p.Seq, p.Time
		c.rec.Server.RTT.Add(time.Duration(p.Time - s.lastSYN))
		t.noteRTT(&s.dir[1], p.Time-s.lastSYN)
	case s.hs >= hsSYNACK && p.Seq == s.isn[1]:
		c.rec.Server.Retrans++
		if s.hs == hsSYNACK {
			s.lastSYNACK = p.Time
		}
	case s.hs == hsNone:
		s.isn[1] = p.Seq
	}
	d.started, d.next = true, p.Seq+1
}

// segment follows the sequence range [start, end) sent in this direction at time now, and
// says whether it is a retransmission: a range seen before, or one that fills a gap that
// was seen skipped at least half the side's smallest RTT ago (sooner, it is reordering).
func (d *direction) segment(start, end uint32, now int64) bool {
	if !d.started {
		d.started, d.next = true, end
		d.pend(end, now)
		return false
	}
	if !seqLess(start, d.next) { // new data, after a gap or not
		if seqLess(d.next, start) {
			d.addHole(d.next, start, now)
		}
		d.next = end
		d.pend(end, now)
		return false
	}
	if d.pending && seqLess(start, d.pendEnd) {
		d.pending = false // Karn: a retransmitted range makes the sample ambiguous
	}
	if seqLess(d.next, end) { // partly old, partly new: a repacketised retransmission
		d.next = end
		return true
	}
	for i := 0; i < d.nholes; i++ {
		h := &d.holes[i]
		if !seqLess(start, h.end) || !seqLess(h.start, end) {
			continue
		}
		// A retransmission the first SACK triggers (RACK, no reordering window) arrives one
		// RTT after the gap at the soonest, as soon as the luckiest RTT sample: half of it
		// tells it from reordering with a margin for jitter.
		reorder := d.minRTT / 2
		if reorder == 0 {
			reorder = defaultReorder
		}
		filledLate := now-h.at >= reorder
		switch {
		case !seqLess(h.start, start) && !seqLess(end, h.end): // all of it
			d.nholes--
			d.holes[i] = d.holes[d.nholes]
		case !seqLess(h.start, start): // its beginning
			h.start = end
		default: // its end, or its middle (the rest after end is forgotten)
			h.end = start
		}
		return filledLate
	}
	return true
}

// pend starts an RTT sample on the data ending at end, the latest sent: an ACK covering it
// was sent after it arrived, whatever earlier data it also covers (a receiver may
// acknowledge every second segment).
func (d *direction) pend(end uint32, now int64) {
	d.pending, d.pendEnd, d.pendTime = true, end, now
}

func (d *direction) addHole(start, end uint32, now int64) {
	if d.nholes == maxHoles { // forget the oldest
		copy(d.holes[:], d.holes[1:])
		d.nholes--
	}
	d.holes[d.nholes] = hole{start: start, end: end, at: now}
	d.nholes++
}

// data follows the requests and responses: a request is the client's data after the
// server last sent, a response the server's data after the client last sent.
func (s *tcpState) data(c *conv, side int, now int64, retrans bool, _ uint32) {
	if retrans && int(s.run) != side {
		return // a late copy of something already answered
	}
	if side == 0 {
		if s.run == 1 {
			c.closeResponse()
		}
		s.run, s.reqLast = 0, now
		return
	}
	switch {
	case s.run == 0:
		c.rec.SRT.Add(time.Duration(now - s.reqLast))
		s.inResponse, s.respFirst, s.respLast = true, now, now
	case s.inResponse:
		s.respLast = now
	}
	s.run = 1
}
