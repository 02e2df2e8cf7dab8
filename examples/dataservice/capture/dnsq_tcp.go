package capture

// maxDNSPrefix is how much of each DNS message over TCP the probe reads: the header and the
// question always fit, and the answers within it name servers.
const maxDNSPrefix = 512

// streamDir follows one direction of a TCP conversation's byte stream in order, from the
// first payload seen: a gap (a segment lost before the probe, reordered, or cut by the
// snap length) breaks it for good.
type streamDir struct {
	next            uint32
	started, broken bool
}

// take returns the bytes of p's payload that come next in the stream: none for a copy of
// what was seen, none and broken after a gap.
func (d *streamDir) take(p *Packet) []byte {
	if d.broken {
		return nil
	}
	if !d.started {
		d.started, d.next = true, p.Seq
	}
	off := int64(int32(d.next - p.Seq))
	switch {
	case off < 0:
		d.broken = true
		return nil
	case off >= int64(p.PayloadLen):
		return nil
	case off > int64(len(p.Payload)):
		d.broken = true
		return nil
	}
	d.next = p.Seq + uint32(p.PayloadLen)
	if len(p.Payload) < p.PayloadLen {
		d.broken = true // what follows the captured bytes was not captured
	}
	return p.Payload[off:]
}

// dnsStream reads the DNS messages of a TCP conversation to port 53: each after its two-byte
// length, several per connection, in each direction.
type dnsStream struct {
	dir [2]dnsDir
}

type dnsDir struct {
	streamDir
	n      int // bytes of the current message read, its length's two included
	length int // the message's length, once n >= 2
	buf    [maxDNSPrefix]byte
}

// dnsSegment reads the DNS messages of TCP segment p, from side (0 the client).
func (t *Table) dnsSegment(s *dnsStream, p *Packet, side int) {
	d := &s.dir[side]
	b := d.take(p)
	for len(b) > 0 {
		if d.n < 2 {
			d.length = d.length<<8 | int(b[0])
			d.n++
			b = b[1:]
			if d.n == 2 && d.length == 0 {
				d.n = 0
			}
			continue
		}
		k := min(d.length-(d.n-2), len(b))
		if at := d.n - 2; at < maxDNSPrefix {
			copy(d.buf[at:], b[:k])
		}
		d.n += k
		b = b[k:]
		if d.n-2 < d.length {
			continue
		}
		msg := d.buf[:min(d.length, maxDNSPrefix)]
		d.n, d.length = 0, 0
		switch {
		case len(msg) < 12:
		case side == 0 && msg[2]&0x80 == 0:
			t.dnsQuery(p, msg)
		case side == 1 && msg[2]&0x80 != 0 && t.dnsAnswer(p, msg):
			t.names.learnDNS(msg)
		}
	}
}
