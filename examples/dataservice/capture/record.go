package capture

import (
	"net/netip"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Record is what the probe saw of one conversation in one time slice. The wiring into the
// data service maps it field by field to a traffic record (see the package doc, "Records").
type Record struct {
	// Time is the start of the time slice, Unix seconds (a multiple of the slice length).
	Time int64
	// Protocol is the IP protocol number.
	Protocol uint8
	// Client opened the conversation; Server answered it.
	Client, Server Side
	// ServerName is the name the client asked for: TLS SNI, HTTP Host, or the DNS answer
	// that gave the server's address; "" when none was seen.
	ServerName string
	// CT, SRT and DTT are the connection time, server response time and data transfer time
	// samples of the slice (TCP only).
	CT, SRT, DTT records.Timing
	// Resets counts the packets with RST set, from either side.
	Resets uint64
	// Layer is what the record stands for: LayerTransport (the zero value) a conversation's
	// time slice; LayerHTTP one request and its response (package doc, "HTTP"), LayerDNS one
	// query, LayerTLS one handshake (package doc, "Application layers"). HTTP, DNS and TLS hold
	// the keys of a record of that layer, zero in the others; an HTTP record's Client and
	// Server hold the bytes and segments of its request and response.
	Layer records.Layer
	HTTP  records.HTTP
	DNS   records.DNS
	TLS   records.TLS
}

// Side is one side of a conversation: what it sent and what the probe measured of it.
type Side struct {
	// IP is the address (an IPv4-mapped IPv6 address is given as IPv4).
	IP netip.Addr
	// Port is the TCP or UDP port; 0 for ICMP.
	Port uint16
	// Bytes are IP bytes (headers included, link layer excluded), as NetFlow counts them;
	// Packets the packets, later fragments included.
	Bytes, Packets uint64
	// RTT is the round trip between the probe and this side.
	RTT records.Timing
	// Retrans counts this side's retransmitted TCP segments.
	Retrans uint64
	// ZeroWindows counts this side's TCP packets that advertised a zero receive window.
	ZeroWindows uint64
}

// empty says whether a record has nothing to say.
func (r *Record) empty() bool {
	return r.Client.Packets == 0 && r.Server.Packets == 0 && r.CT.Samples == 0 &&
		r.SRT.Samples == 0 && r.DTT.Samples == 0 && r.Client.RTT.Samples == 0 && r.Server.RTT.Samples == 0
}
