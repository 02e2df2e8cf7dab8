package capture

import "time"

// conv is one tracked conversation.
type conv struct {
	id         int32
	prev, next int32 // the table's list, by last packet
	key        key
	clientIsA  bool
	first      int64 // ns: first packet (or the last renewal)
	last       int64 // ns: last packet
	closed     int64 // ns: when it was reset or saw its second FIN; 0 while open
	named      bool  // the client's first payload was searched for a name
	seen       bool  // a packet was tracked
	rec        Record
	tcp        tcpState
	http       *httpConv  // its HTTP/1.x, while followed (http.go)
	dnsTCP     *dnsStream // DNS messages over TCP to port 53 (dnsq_tcp.go); nil when none
	tls        *tlsConv   // the TLS handshake being read (tls.go); nil when none or done
}

// renew restarts c's tracking after ActiveTimeout, keeping its roles.
func (c *conv) renew(now int64) {
	c.closeResponse()
	c.tcp = tcpState{}
	c.first = now
}

// closeResponse samples the dtt of the response in progress, if any.
func (c *conv) closeResponse() {
	if c.tcp.inResponse {
		c.rec.DTT.Add(time.Duration(c.tcp.respLast - c.tcp.respFirst))
		c.tcp.inResponse = false
	}
}

// newConnection says whether p, a packet of c, opens a new connection on c's addresses and
// ports: a SYN that is not a copy of c's own, in a conversation already under way.
func (c *conv) newConnection(p *Packet) bool {
	if p.Protocol != ProtoTCP || p.Flags&(FlagSYN|FlagACK) != FlagSYN || !c.seen {
		return false
	}
	return c.tcp.hs == hsNone || p.Seq != c.tcp.isn[0]
}
