package capture

import (
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TLS decoding bounds.
const (
	// MaxTLSMessage is the most bytes of one handshake message the probe keeps, per
	// conversation, to read it across TLS records and TCP segments: a ClientHello, a
	// ServerHello, or the leaf of a Certificate message (the rest of the chain is skipped
	// unread). A longer one is given up (Stats.TLSCertsSkipped for a certificate).
	MaxTLSMessage = 64 << 10
	// MaxTLSBuffered bounds the bytes all conversations keep at once for that: past it, a
	// message that does not fit in one segment is given up as above.
	MaxTLSBuffered = 64 << 20
)

// Handshake phases of a tlsConv.
const (
	tlsHello    = iota // the ClientHello being read
	tlsServer          // waiting for the ServerHello
	tlsFinished        // TLS 1.2 and older: waiting for the server's Finished
	tlsFlight          // TLS 1.3: the server's first flight, until the client sends again
)

// tlsConv is the decoding of a TLS handshake in a TCP conversation.
type tlsConv struct {
	phase      uint8
	hello      bool  // the ClientHello was read
	helloAt    int64 // ns: its first packet
	lastServer int64 // ns: the server's latest packet of its first flight (TLS 1.3)
	end        int64 // ns: the handshake's end (ct); 0 until then
	sni        string
	info       records.TLS
	dir        [2]tlsDir
}

// startLayers starts decoding TCP conversation c at its client's first payload p: DNS when
// the server's port is 53, TLS when p begins a handshake record holding a ClientHello.
func (t *Table) startLayers(c *conv, p *Packet) {
	b := p.Payload
	var server *streamDir
	switch {
	case c.rec.Server.Port == 53:
		c.dnsTCP = new(dnsStream)
		server = &c.dnsTCP.dir[1].streamDir
	case len(b) >= 6 && b[0] == 22 && b[1] == 3 && b[5] == 1:
		c.tls = &tlsConv{helloAt: p.Time}
		server = &c.tls.dir[1].streamDir
	default:
		return
	}
	if c.tcp.hs >= hsSYNACK { // the server's stream starts after its SYN, not at its first segment seen
		server.started, server.next = true, c.tcp.isn[1]+1
	}
}

// layerSegment hands TCP segment p of c, from side (0 the client), to c's decoders.
func (t *Table) layerSegment(c *conv, p *Packet, side int) {
	if c.dnsTCP != nil {
		t.dnsSegment(c.dnsTCP, p, side)
	}
	if c.tls != nil && t.tlsSegment(c, p, side) {
		t.tlsRecord(c)
	}
}

// endLayers emits what c's decoders hold as c ends: the record of a handshake not finished.
func (t *Table) endLayers(c *conv) {
	if c.tls != nil {
		t.tlsRecord(c)
	}
	c.dnsTCP = nil
}

// tlsSegment reads TCP segment p of c's handshake and says whether the handshake is done.
func (t *Table) tlsSegment(c *conv, p *Packet, side int) bool {
	h := c.tls
	d := &h.dir[side]
	b := d.take(p)
	if len(b) == 0 {
		return false
	}
	if h.phase == tlsFlight { // TLS 1.3: the client's next data ends the server's first flight
		if side == 1 {
			h.lastServer = p.Time
			return false
		}
		h.end = h.lastServer
		return true
	}
	return t.tlsRead(c, d, b, p, side)
}

// tlsRecord emits c's handshake record and stops decoding: its time is the slice of the
// ClientHello; a handshake whose ClientHello was not read has none. Its issuer reads HTTPOther
// past Config.MaxTLSIssuers distinct issuers in the records of that hour
// (Stats.TLSIssuersLeftOut).
func (t *Table) tlsRecord(c *conv) {
	h := c.tls
	c.tls = nil
	t.tlsRelease(h)
	if !h.hello {
		return
	}
	r := Record{Time: t.sliceOf(h.helloAt), Protocol: ProtoTCP, Layer: records.LayerTLS, TLS: h.info,
		Client: Side{IP: c.rec.Client.IP, Port: c.rec.Client.Port}, Server: Side{IP: c.rec.Server.IP, Port: c.rec.Server.Port}}
	if h.end != 0 {
		r.CT.Add(time.Duration(h.end - h.helloAt))
	}
	if r.TLS.Issuer != "" {
		var ok bool
		if r.TLS.Issuer, ok = t.tlsIssuers.Bound(r.Time/3600, r.TLS.Issuer); !ok {
			t.stats.TLSIssuersLeftOut++
		}
	}
	if h.sni != "" && t.nameFits(t.sliceStart/1e9, h.sni) {
		r.ServerName = h.sni
	} else if h.sni != "" {
		t.stats.NamesLeftOut++
	}
	t.stats.TLSRecords++
	t.stats.Records++
	t.emit(r)
}
