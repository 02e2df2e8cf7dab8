package capture

import (
	"encoding/binary"
	"net/netip"
)

// dnsQueries remembers the DNS queries the probe saw until their answer, so that only an
// answer to one of them names servers and gives the query's record (dnsq.go): the same id,
// from the address the query went to, port 53, to the client's address and port, asking the
// same name and type, within the timeout. An answer nobody asked for (anyone can send a UDP
// packet from port 53) names nothing. The queries are kept in a list in arrival order, at most
// max: a new one past it forgets the oldest.
type dnsQueries struct {
	m          map[dnsKey]int32 // the query's slot
	slots      []dnsQuery       // grows to max
	free       []int32
	head, tail int32 // arrival order, the oldest at head; -1 when empty
	max        int
	timeout    int64 // ns
}

type dnsKey struct {
	client, server netip.Addr
	port, id       uint16 // the client's port, the query's id
	proto          uint8
}

// dnsQuery is one query awaiting its answer.
type dnsQuery struct {
	k          dnsKey
	name       uint64 // hash of the name asked (lower-cased) and its type
	qname      string // the name as records carry it
	qtype      uint16
	serverPort uint16
	at         int64 // ns
	prev, next int32
}

// dns reads a DNS message p carries over UDP (from or to port 53): a query is remembered, an
// answer to one names the servers it gives and makes the query's record.
func (t *Table) dns(p *Packet) {
	b := p.Payload
	switch {
	case len(b) < 12:
	case b[2]&0x80 == 0:
		if p.DstPort == 53 {
			t.dnsQuery(p, b)
		}
	case p.SrcPort == 53 && t.dnsAnswer(p, b):
		t.names.learnDNS(b)
	}
}

func newDNSQueries(max int, timeout int64) dnsQueries {
	return dnsQueries{m: make(map[dnsKey]int32), max: max, timeout: timeout, head: -1, tail: -1}
}

func (q *dnsQueries) len() int { return len(q.m) }

// add remembers a query at the list's tail; the caller made room.
func (q *dnsQueries) add(e dnsQuery) {
	var i int32
	if n := len(q.free); n > 0 {
		i = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		i = int32(len(q.slots))
		q.slots = append(q.slots, dnsQuery{})
	}
	e.prev, e.next = q.tail, -1
	if q.tail >= 0 {
		q.slots[q.tail].next = i
	} else {
		q.head = i
	}
	q.tail = i
	q.slots[i] = e
	q.m[e.k] = i
}

// remove forgets query i.
func (q *dnsQueries) remove(i int32) {
	e := &q.slots[i]
	if e.prev >= 0 {
		q.slots[e.prev].next = e.next
	} else {
		q.head = e.next
	}
	if e.next >= 0 {
		q.slots[e.next].prev = e.prev
	} else {
		q.tail = e.prev
	}
	delete(q.m, e.k)
	*e = dnsQuery{}
	q.free = append(q.free, i)
}

// question reads the first question of DNS message b (at least 12 bytes): its name as records
// carry it, written into buf, its type, and their hash.
func question(b []byte, buf *[maxQName]byte) (name []byte, qtype uint16, h uint64, ok bool) {
	name, off := appendQName(buf[:0], b, 12)
	if off < 0 || off+4 > len(b) {
		return nil, 0, 0, false
	}
	qtype = binary.BigEndian.Uint16(b[off:])
	h = uint64(14695981039346656037)
	for _, c := range name {
		h = (h ^ uint64(c)) * 1099511628211
	}
	h = (h ^ uint64(qtype)) * 1099511628211
	return name, qtype, h, true
}
