package capture

import (
	"encoding/binary"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// maxQName is the longest query name a DNS record carries; a longer one is cut.
const maxQName = records.MaxQNameLen

// dnsQuery remembers the question of the DNS query b (QR 0, at least 12 bytes) that p carries
// to port 53, over UDP or TCP. A query repeated with its id, ports and question before its
// timeout is the same query, timed from the first; one reusing the id of an unanswered
// query for another question ends that one as unanswered.
func (t *Table) dnsQuery(p *Packet, b []byte) {
	if b[2]&0x78 != 0 || binary.BigEndian.Uint16(b[4:]) != 1 { // opcode QUERY, one question
		return
	}
	t.dnsExpire(p.Time, false)
	var buf [maxQName]byte
	name, qtype, h, ok := question(b, &buf)
	if !ok {
		return
	}
	q := &t.queries
	k := dnsKey{client: p.Src, server: p.Dst, port: p.SrcPort, id: binary.BigEndian.Uint16(b), proto: p.Protocol}
	if i, ok := q.m[k]; ok {
		if e := &q.slots[i]; e.name == h && p.Time-e.at <= q.timeout {
			return
		}
		t.dnsRecord(&q.slots[i], records.RCodeTimeout, -1)
		q.remove(i)
	}
	if len(q.m) >= q.max {
		t.stats.DNSForgotten++
		q.remove(q.head)
	}
	q.add(dnsQuery{k: k, name: h, qname: string(name), qtype: qtype, serverPort: p.DstPort, at: p.Time})
}

// dnsAnswer reads the DNS response b (QR 1, at least 12 bytes) that p carries from port 53:
// when it answers a query seen, within the timeout, it makes the query's record, forgets the
// query and says true if the answer may name servers (it has the question). An answer
// without a question (some servers answer FORMERR so) answers the query of its id.
func (t *Table) dnsAnswer(p *Packet, b []byte) bool {
	q := &t.queries
	k := dnsKey{client: p.Dst, server: p.Src, port: p.DstPort, id: binary.BigEndian.Uint16(b), proto: p.Protocol}
	i, ok := q.m[k]
	if !ok {
		return false
	}
	e := &q.slots[i]
	if p.Time-e.at > q.timeout {
		t.dnsRecord(e, records.RCodeTimeout, -1)
		q.remove(i)
		return false
	}
	qd := binary.BigEndian.Uint16(b[4:])
	if qd != 0 {
		var buf [maxQName]byte
		if _, _, h, ok := question(b, &buf); !ok || h != e.name {
			return false
		}
	}
	t.dnsRecord(e, uint16(b[3]&0x0f), p.Time-e.at)
	q.remove(i)
	return qd == 1
}

// dnsExpire ends the queries unanswered for longer than the timeout at now (all of them
// when all is set) with a record of rcode timeout.
func (t *Table) dnsExpire(now int64, all bool) {
	q := &t.queries
	for q.head >= 0 {
		e := &q.slots[q.head]
		if !all && now-e.at <= q.timeout {
			return
		}
		t.dnsRecord(e, records.RCodeTimeout, -1)
		q.remove(q.head)
	}
}

// dnsRecord emits the record of query e: answered with rcode after srt nanoseconds, or
// unanswered (rcode records.RCodeTimeout, srt negative: no sample). Its time is the slice in
// which the query was sent; its name reads HTTPOther past Config.MaxDNSNames distinct names
// in the records of that hour (Stats.DNSNamesLeftOut): the query alone makes the record.
func (t *Table) dnsRecord(e *dnsQuery, rcode uint16, srt int64) {
	r := Record{Time: t.sliceOf(e.at), Protocol: e.k.proto, Layer: records.LayerDNS,
		Client: Side{IP: e.k.client.Unmap(), Port: e.k.port}, Server: Side{IP: e.k.server.Unmap(), Port: e.serverPort},
		DNS: records.DNS{QName: e.qname, QType: e.qtype, RCode: rcode}}
	if e.qname != "" {
		var ok bool
		if r.DNS.QName, ok = t.dnsNames.Bound(r.Time/3600, e.qname); !ok {
			t.stats.DNSNamesLeftOut++
		}
	}
	if srt >= 0 {
		r.SRT.Add(time.Duration(srt))
	}
	if rcode == records.RCodeTimeout {
		t.stats.DNSTimeouts++
	}
	t.stats.DNSRecords++
	t.stats.Records++
	t.emit(r)
}

// sliceOf is the start of the time slice holding at (ns), in Unix seconds.
func (t *Table) sliceOf(at int64) int64 {
	n := int64(t.cfg.Slice)
	return (at - at%n) / 1e9
}

// appendQName appends the DNS name at off of message b to dst as records carry it: lower
// case (ASCII), labels joined by dots, without the final dot ("" for the root), a dot or
// backslash in a label escaped with a backslash and any other byte outside '!'..'~' as \DDD
// (the master-file form), cut at maxQName bytes (never within an escape, never after a dot).
// It returns the offset after the name, -1 when malformed (see walkName).
func appendQName(dst, b []byte, off int) ([]byte, int) {
	cut := false
	put := func(s ...byte) {
		if cut || len(dst)+len(s) > maxQName {
			cut = true
			return
		}
		dst = append(dst, s...)
	}
	labels := 0
	end := walkName(b, off, func(l []byte) bool {
		if labels++; labels > 1 {
			put('.')
		}
		for _, c := range l {
			switch {
			case 'A' <= c && c <= 'Z':
				put(c + 'a' - 'A')
			case c == '.' || c == '\\':
				put('\\', c)
			case c < '!' || c > '~':
				put('\\', '0'+c/100, '0'+c/10%10, '0'+c%10)
			default:
				put(c)
			}
		}
		return true
	})
	if n := len(dst); cut && n > 0 && dst[n-1] == '.' {
		dst = dst[:n-1] // cut after a label: no final dot
	}
	return dst, end
}
