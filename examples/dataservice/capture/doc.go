// Package capture is the data service's packet probe: it reads packets from a capture file
// or a live Linux interface, follows every TCP conversation (and UDP and ICMP flows), and
// emits one Record per conversation and time slice with what it sent and how it performed:
// round-trip times on each side, connection time, server response time, data transfer time,
// retransmissions, zero windows, resets and the server's name.
//
//	src, err := capture.OpenFile("trace.pcapng") // or capture.OpenInterface("eth0", filter)
//	if err != nil { ... }
//	defer src.Close()
//	tbl := capture.NewTable(capture.Config{}, func(r capture.Record) { store(r) })
//	p := &capture.Probe{Source: src, Table: tbl}
//	err = p.Run(ctx) // a file: to its end, then every conversation is flushed
//
// A live capture runs until ctx is done; call tbl.Flush() after Run to emit what is pending.
//
// # Sources
//
// OpenFile reads pcap (micro- or nanosecond, either byte order) and pcapng (several
// interfaces and sections, any timestamp resolution) as fast as the probe takes packets.
// OpenInterface captures with an AF_PACKET socket and a TPACKET_V3 memory-mapped ring
// (RingBlocks × RingBlockSize, 32 MiB), written in Go with golang.org/x/sys/unix: no cgo,
// no libpcap, no copy per packet, and the kernel's drop counter (ring full) read through
// Source.Stats. gopacket's afpacket package does the same but needs cgo; gopacket/pcap needs
// libpcap-dev at build time. Link types: Ethernet, Linux SLL and raw IPv4/IPv6.
//
// Filters are in tcpdump's syntax. CompileFilter runs `tcpdump -ddd` (libpcap's own
// compiler, so that the syntax is exactly tcpdump's) and needs tcpdump installed at run
// time; the program is attached to the socket (the kernel drops what it refuses before the
// ring) or, for files, run in Go (golang.org/x/net/bpf).
//
// # Decoding
//
// Decode reads Ethernet with up to MaxVLANs 802.1Q/802.1ad tags, IPv4, IPv6 with up to
// MaxIPv6Headers extension headers (hop-by-hop, routing, destination options,
// authentication, fragment), TCP, UDP, ICMP and ICMPv6, into a reused Packet without an
// allocation (the decoder is this package's own: gopacket's DecodingLayerParser was the
// alternative, a large dependency for the few fields the probe reads). Fragments are
// counted, not reassembled: a first fragment counts in its conversation; later fragments,
// which carry no ports, count in Stats.LaterFragments only. A packet counts the bytes its IP
// header states, at most what its frame carried on the wire from the IP header on (pcap's
// original length, so that a snap length that cut the capture lowers nothing): a 54-byte
// frame whose header claims 65,535 bytes counts 40.
//
// # Conversations
//
// A conversation is the packets between two addresses and ports of one protocol. The client
// is the side that sent the SYN (a SYN-ACK's sender is the server); when the capture begins
// after the handshake, or for UDP, the server is the side with the lower port, then the lower
// address, as the flow collectors decide; an ICMP echo request's sender is the client. A
// SYN with a new sequence number on the addresses and ports of a conversation under way
// opens a new conversation (port reuse); a copy of the SYN stays in its own.
//
// Each conversation emits one Record per time slice in which it had packets or samples
// (Config.Slice, one minute by default, as the flow collectors' slices), when the slice
// ends; a long download thus shows in every slice it lasts. A conversation ends after
// Config.IdleTimeout without packets (2 minutes), Config.ClosedTimeout after a reset or its
// second FIN (10 s), or at Flush; Config.ActiveTimeout (30 minutes) renews an old one. The
// table holds at most Config.MaxConversations (100,000, about 86 MB): a new conversation in
// a full table evicts the one quiet the longest, whose record is emitted first, so that a
// flood of SYNs to random ports costs bounded memory and loses no count (Stats.Evicted).
//
// # Metrics
//
// Times are measured where the probe sits, from packet timestamps, and kept per record as a
// sum, a sample count and a histogram (package histogram), so that any grouping's average
// and percentiles are exact to combine.
//
//   - server.rtt: the round trip from the probe to the server and back. Samples: the
//     client's SYN to the server's SYN-ACK (the latest SYN, if it was retransmitted), and
//     later, the client's latest data segment or FIN to the server's first pure ACK
//     covering it (an ACK covering only earlier data gives no sample).
//   - client.rtt: the same toward the client: the SYN-ACK to the client's ACK of it, and
//     the server's data or FIN to the client's first pure ACK covering it.
//     There is no sample when the data was retransmitted (Karn's rule) or when the ACK
//     carries data (it may have waited for the application): what remains is unambiguous,
//     though a receiver's delayed ACK adds its delay.
//   - ct: connection time, from the client's first SYN to its ACK of the SYN-ACK; none when
//     the handshake was not seen whole.
//   - srt: server response time, from the last packet of a request to the first packet of
//     its response. A request is the client's data after the server last sent data; a
//     response is the server's data after the client last sent data; packets without
//     payload (pure ACKs) are neither. Pipelined requests sent before any response are
//     thus one request, answered by one response. Server data that answers no request seen
//     (a banner, or the capture began mid-response) gives no srt.
//   - dtt: data transfer time of a response, from its first to its last packet, sampled when
//     the response ends: at the client's next request, a FIN or a reset, or the end of the
//     conversation. A one-packet response has dtt 0. It belongs to the record of the slice
//     where the response ended.
//   - eurt (computed by the query language, not here): rtt + srt + dtt.
//   - client.retrans, server.retrans: TCP segments of that side that carried a sequence
//     range seen before, or filled a gap the probe saw skipped (the original was lost before
//     the probe) at least half the side's smallest RTT after the gap appeared; sooner, the
//     gap is reordering, not counted (3 ms when the side has no RTT sample yet). Half, since
//     a retransmission the first SACK triggers (Linux's RACK) comes one RTT after the gap,
//     which jitter makes a little less than the smallest sample. A retransmitted SYN or
//     SYN-ACK counts too. The probe remembers 4 gaps per direction. What the probe cannot
//     see goes uncounted: a lost last segment (nothing after it shows a gap) and a
//     retransmission lost in turn; with 5 % of the server's packets lost it counted 91-100 %
//     of what the stacks retransmitted (TestLive).
//   - client.zero_windows, server.zero_windows: that side's TCP packets (SYNs excepted)
//     advertising a zero receive window.
//   - resets: packets with RST set, from either side.
//   - server_name: the SNI of the client's TLS ClientHello, or the Host header of its HTTP/1
//     request (each read from the client's first payload segment only), or else the name
//     whose DNS answer (A or AAAA, over UDP) gave the server's address: the name asked, not
//     the CNAME's target. Only the answer to a query the probe saw names servers: the same
//     id and name, from the address and port 53 the query went to, to the client's address
//     and port, within Config.DNSTimeout (10 s), once; an answer nobody asked for (anyone
//     can send a packet from port 53) names nothing. The probe remembers
//     Config.MaxDNSQueries (8,192) queries, a new one past it forgetting the oldest, so a
//     probe that sees only one direction of a resolver's traffic names no server by DNS.
//     Names are lower-cased; the DNS cache keeps Config.MaxNames (65,536) addresses. The
//     records of one hour carry at most Config.MaxServerNames (10,000) distinct names: past
//     it a record's name is "" (Stats.NamesLeftOut), since whoever sends packets chooses them.
//
// # Records
//
// The wiring into the data service maps a Record to a traffic record so (the names are
// DESIGN.md's, "Capture, context and alerts"):
//
//	time                               Record.Time (slice start, Unix seconds)
//	protocol                           Protocol
//	client.ip/port/bytes/packets       Client.IP, Port, Bytes, Packets (IP bytes, as NetFlow's)
//	server.ip/port/bytes/packets       Server.IP, Port, Bytes, Packets
//	client.rtt, server.rtt             Client.RTT, Server.RTT (records.Timing); rtt_samples = Samples
//	ct, srt, dtt                       CT, SRT, DTT (records.Timing), with their Samples
//	ct_hist, srt_hist, dtt_hist, rtt_hist  each Timing's Hist, for p50/p95/p99/max(m)
//	client.retrans, server.retrans     Client.Retrans, Server.Retrans (retrans = their sum)
//	client.zero_windows, server.zero_windows   Client.ZeroWindows, Server.ZeroWindows
//	resets                             Resets
//	server.name                        ServerName ("" = null)
//	application                        the operator's rules, then the server port (never ServerName)
//	exporter, in_if                    the sensor's address and the interface's index
//
// Stores keep the sums and counts (not averages) so that rollups add them exactly.
package capture
