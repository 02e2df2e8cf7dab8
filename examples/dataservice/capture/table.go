package capture

import (
	"net/netip"
)

// key names a conversation whichever way its packets go: a is the lower endpoint.
type key struct {
	a, b   netip.Addr
	ap, bp uint16
	proto  uint8
}

// Table tracks conversations and emits their records, one per conversation and time slice,
// to the function given to NewTable. Feed it packets in capture order with Packet; call
// Advance when time passes without packets, and Flush at the end. A Table is not safe for
// concurrent use: one goroutine owns it (Run does).
type Table struct {
	cfg   Config
	emit  func(Record)
	index map[key]int32
	convs blocks
	free  []int32
	// lru lists conversations by their last packet, the most recent at head.
	head, tail int32
	names      nameCache
	queries    dnsQueries
	tls        tlsTable
	hourNames  map[string]struct{} // the server names of hour's records
	hour       int64
	sliceStart int64 // ns; the slice being filled
	sliceEnd   int64 // ns; 0 before the first packet
	stats      Stats
	httpT      httpTable
	// dnsNames and tlsIssuers are the query names and issuers of one hour's records
	// (Config.MaxDNSNames, MaxTLSIssuers).
	dnsNames, tlsIssuers *Names
}

// NewTable returns an empty table that passes each record to emit, from the goroutine that
// feeds the table. The record's histograms are emit's to keep.
func NewTable(cfg Config, emit func(Record)) *Table {
	cfg.setDefaults()
	t := &Table{
		cfg: cfg, emit: emit, index: make(map[key]int32),
		head: -1, tail: -1, names: newNameCache(cfg.MaxNames),
		queries: newDNSQueries(cfg.MaxDNSQueries, int64(cfg.DNSTimeout)), hourNames: make(map[string]struct{}),
	}
	t.httpT.init(&cfg)
	t.dnsNames, t.tlsIssuers = NewNames(cfg.MaxDNSNames, nil), NewNames(cfg.MaxTLSIssuers, nil)
	return t
}

// Config returns the table's configuration, defaults filled in.
func (t *Table) Config() Config { return t.cfg }

// Stats returns the table's counters.
func (t *Table) Stats() Stats {
	s := t.stats
	s.Active = uint64(len(t.index))
	s.Names = uint64(t.names.len())
	s.DNSQueries = uint64(t.queries.len())
	return s
}

// Packet tracks one decoded packet. Packets must come in time order: one earlier than the
// slice being filled counts in it.
func (t *Table) Packet(p *Packet) {
	t.Advance(p.Time)
	t.stats.Packets++
	t.stats.Bytes += uint64(p.Len)
	if p.Fragment {
		t.stats.Fragments++
		if p.LaterFragment {
			t.stats.LaterFragments++
			return
		}
	}
	if p.Protocol == ProtoUDP && (p.SrcPort == 53 || p.DstPort == 53) {
		t.dns(p)
	}
	c, fromA := t.lookup(p)
	if c.newConnection(p) {
		// A new connection on the same addresses and ports: end this conversation and start
		// another, with the SYN's sender as its client.
		t.end(c)
		c, fromA = t.lookup(p)
	}
	c.last, c.seen = p.Time, true
	t.touch(c.id)
	side := 1 // the server sent it
	if fromA == c.clientIsA {
		side = 0
	}
	s := &c.rec.Client
	if side == 1 {
		s = &c.rec.Server
	}
	s.Packets++
	s.Bytes += uint64(p.Len)
	if p.Protocol == ProtoTCP {
		t.tcp(c, p, side)
		if c.http != nil || p.PayloadLen > 0 && !t.httpT.off {
			t.http(c, p, side)
		}
	}
}

// Advance closes the time slices that end at or before now (Unix nanoseconds): each
// conversation with something to report emits its record, and those idle, closed or too
// old are ended.
func (t *Table) Advance(now int64) {
	if t.sliceEnd == 0 {
		t.startSlice(now)
		return
	}
	if now < t.sliceEnd {
		return
	}
	t.closeSlice(now)
	t.startSlice(now)
}

// Flush emits every conversation's record and ends them all: the end of a capture file.
func (t *Table) Flush() {
	t.dnsExpire(0, true)
	for i := t.head; i >= 0; {
		next := t.convs.at(i).next
		t.end(t.convs.at(i))
		i = next
	}
}

func (t *Table) startSlice(now int64) {
	n := int64(t.cfg.Slice)
	t.sliceStart = now - now%n
	t.sliceEnd = t.sliceStart + n
}

// closeSlice emits the slice's records and ends the conversations that timed out by now.
func (t *Table) closeSlice(now int64) {
	idle, closed, active := int64(t.cfg.IdleTimeout), int64(t.cfg.ClosedTimeout), int64(t.cfg.ActiveTimeout)
	t.dnsExpire(now, false)
	for i := t.head; i >= 0; {
		c := t.convs.at(i)
		next := c.next
		switch {
		case now-c.last >= idle, c.closed != 0 && now-c.closed >= closed:
			t.end(c)
		default:
			if now-c.first >= active {
				c.renew(now)
			}
			t.report(c)
		}
		i = next
	}
}

// report emits c's record of the slice, if it has anything, and starts the next.
func (t *Table) report(c *conv) {
	if c.rec.empty() && c.rec.Client.Retrans == 0 && c.rec.Server.Retrans == 0 && c.rec.Resets == 0 {
		return
	}
	r := c.rec
	r.Time = t.sliceStart / 1e9
	if r.ServerName == "" {
		r.ServerName = t.names.lookup(r.Server.IP)
	}
	c.rec = Record{Protocol: r.Protocol, ServerName: r.ServerName,
		Client: Side{IP: r.Client.IP, Port: r.Client.Port}, Server: Side{IP: r.Server.IP, Port: r.Server.Port}}
	if r.ServerName != "" && !t.nameFits(r.Time, r.ServerName) {
		r.ServerName = ""
		t.stats.NamesLeftOut++
	}
	t.stats.Records++
	t.emit(r)
}

// nameFits says whether the records of the hour holding time (Unix seconds) may carry name:
// it is among their names already, or there is room for one more (Config.MaxServerNames).
// Records come in time order.
func (t *Table) nameFits(time int64, name string) bool {
	if h := time / 3600; h != t.hour {
		clear(t.hourNames)
		t.hour = h
	}
	if _, ok := t.hourNames[name]; ok {
		return true
	}
	if len(t.hourNames) >= t.cfg.MaxServerNames {
		return false
	}
	t.hourNames[name] = struct{}{}
	return true
}

// end reports c and removes it.
func (t *Table) end(c *conv) {
	c.closeResponse()
	t.httpClose(c)
	t.endLayers(c)
	t.report(c)
	delete(t.index, c.key)
	t.unlink(c.id)
	t.free = append(t.free, c.id)
	c.rec = Record{}
}

// lookup finds or starts the conversation of p, and says whether p's sender is endpoint a.
func (t *Table) lookup(p *Packet) (*conv, bool) {
	k := key{a: p.Src, b: p.Dst, ap: p.SrcPort, bp: p.DstPort, proto: p.Protocol}
	fromA := true
	if c := p.Src.Compare(p.Dst); c > 0 || c == 0 && p.SrcPort > p.DstPort {
		k = key{a: p.Dst, b: p.Src, ap: p.DstPort, bp: p.SrcPort, proto: p.Protocol}
		fromA = false
	}
	if i, ok := t.index[k]; ok {
		return t.convs.at(i), fromA
	}
	if len(t.index) >= t.cfg.MaxConversations {
		t.stats.Evicted++
		t.end(t.convs.at(t.tail))
	}
	var id int32
	if n := len(t.free); n > 0 {
		id = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		id = t.convs.add()
	}
	c := t.convs.at(id)
	*c = conv{id: id, key: k, first: p.Time, prev: -1, next: -1}
	c.clientIsA = clientIsSender(p) == fromA
	c.rec.Protocol = p.Protocol
	a := Side{IP: k.a.Unmap(), Port: k.ap} // records refuse IPv4-mapped IPv6 addresses
	b := Side{IP: k.b.Unmap(), Port: k.bp}
	if c.clientIsA {
		c.rec.Client, c.rec.Server = a, b
	} else {
		c.rec.Client, c.rec.Server = b, a
	}
	c.rec.ServerName = t.names.lookup(c.rec.Server.IP)
	t.index[k] = id
	t.stats.Conversations++
	return c, fromA
}

// clientIsSender says whether the first packet seen of a conversation was sent by its
// client: a SYN's sender is the client, a SYN-ACK's the server, an ICMP echo request's the
// client; otherwise the server is the side with the lower port (then the lower address), as
// the flow collectors decide.
func clientIsSender(p *Packet) bool {
	switch p.Protocol {
	case ProtoTCP:
		if p.Flags&FlagSYN != 0 {
			return p.Flags&FlagACK == 0
		}
	case ProtoICMP:
		switch p.ICMPType {
		case 8:
			return true
		case 0:
			return false
		}
	case ProtoICMPv6:
		switch p.ICMPType {
		case 128:
			return true
		case 129:
			return false
		}
	}
	if p.SrcPort != p.DstPort {
		return p.SrcPort > p.DstPort
	}
	return p.Src.Compare(p.Dst) > 0
}
