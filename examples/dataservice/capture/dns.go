package capture

import (
	"encoding/binary"
	"net/netip"
)

// dnsQueries remembers the DNS queries the probe saw, so that only an answer to one of them
// names servers: the same id, from the address the query went to, port 53, to the client's
// address and port, asking the same name, within the timeout. An answer nobody asked for
// (anyone can send a UDP packet from port 53) names nothing. The queries are kept in arrival
// order, at most max: a new one past it forgets the oldest.
type dnsQueries struct {
	m       map[dnsKey]dnsQuery
	ring    []dnsAsked // arrival order from head, a ring once it holds max
	head    int
	max     int
	timeout int64 // ns
}

type dnsKey struct {
	client, server netip.Addr
	port, id       uint16 // the client's port, the query's id
}

type dnsQuery struct {
	name uint64 // hash of the name asked, lower-cased
	at   int64
}

type dnsAsked struct {
	k  dnsKey
	at int64
}

// dns reads a DNS message p carries (UDP from or to port 53): a query is remembered, an
// answer to one names the servers it gives.
func (t *Table) dns(p *Packet) {
	b := p.Payload
	switch {
	case len(b) < 12:
	case b[2]&0x80 == 0:
		if p.DstPort == 53 {
			t.queries.query(p)
		}
	case p.SrcPort == 53 && t.queries.answered(p):
		t.names.learnDNS(b)
	}
}

func newDNSQueries(max int, timeout int64) dnsQueries {
	return dnsQueries{m: make(map[dnsKey]dnsQuery), max: max, timeout: timeout}
}

func (q *dnsQueries) len() int { return len(q.m) }

// query remembers the question of the DNS query p carries (UDP to port 53, QR 0).
func (q *dnsQueries) query(p *Packet) {
	b := p.Payload                                             // at least 12 bytes, QR 0
	if b[2]&0x78 != 0 || binary.BigEndian.Uint16(b[4:]) != 1 { // opcode QUERY, one question
		return
	}
	h, ok := questionHash(b)
	if !ok {
		return
	}
	k := dnsKey{client: p.Src, server: p.Dst, port: p.SrcPort, id: binary.BigEndian.Uint16(b)}
	if len(q.ring) < q.max {
		q.ring = append(q.ring, dnsAsked{k, p.Time})
	} else {
		old := q.ring[q.head]
		if e, ok := q.m[old.k]; ok && e.at == old.at {
			delete(q.m, old.k)
		}
		q.ring[q.head] = dnsAsked{k, p.Time}
		q.head = (q.head + 1) % q.max
	}
	q.m[k] = dnsQuery{name: h, at: p.Time}
}

// answered says whether the DNS response p carries (UDP from port 53, QR 1) answers a query
// seen, and forgets that query.
func (q *dnsQueries) answered(p *Packet) bool {
	b := p.Payload // at least 12 bytes
	k := dnsKey{client: p.Dst, server: p.Src, port: p.DstPort, id: binary.BigEndian.Uint16(b)}
	e, ok := q.m[k]
	if !ok {
		return false
	}
	if p.Time-e.at > q.timeout {
		delete(q.m, k)
		return false
	}
	h, ok := questionHash(b)
	if !ok || h != e.name {
		return false
	}
	delete(q.m, k)
	return true
}

// questionHash is the FNV-1a hash of the lower-cased name of a DNS message's first question.
func questionHash(b []byte) (uint64, bool) {
	var buf [maxName]byte
	name, off := readName(b, 12, buf[:0])
	if off < 0 || len(name) == 0 {
		return 0, false
	}
	h := uint64(14695981039346656037)
	for _, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h, true
}
