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
// table holds at most Config.MaxConversations (100,000, about 96 MB): a new conversation in
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
//     request (each read from the client's first payload segment only; a ClientHello across
//     segments is read whole, see "Application layers"), or else the name whose DNS answer (A
//     or AAAA, over UDP or TCP) gave the server's address: the name asked, not
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
// # HTTP
//
// Besides its transport records, the probe emits one record of layer records.LayerHTTP per
// HTTP/1.x request seen in clear, on any TCP port: a conversation is taken for HTTP at the
// client's first segment that begins with a request line (a method token of capital letters,
// a space, a target, a space, HTTP/1.0 or HTTP/1.1), and followed in sequence order on both
// sides: each request's and response's header block, and its body to its end (Content-Length;
// chunked encoding chunk by chunk; none for HEAD, 1xx, 204 and 304; a response without either
// ends with the connection), so that keep-alive's next request and pipelined requests (at most
// HTTPMaxPipeline, 8, waiting) are each answered by their own response, in order. A 1xx
// response but 101 is interim (100 Continue): the final response answers. After a 2xx to
// CONNECT or a 101 the connection is another protocol's, no longer followed. HTTP/2 in clear
// (h2c) is not decoded: it stays at the transport layer, as HTTPS does (the tls layer).
//
// A record has the conversation's endpoints, protocol, server name and time slice (the slice
// in which it is emitted: its response's end), and:
//
//	http.method   HTTP.Method: as sent; past 64 distinct methods an hour HTTPOther
//	http.status   HTTP.Status: the final response's code; 0 without a response
//	http.host     HTTP.Host: the Host header (an absolute target's authority first) without
//	              its port, lower case, at most records.MaxHostLen bytes; "" when absent
//	http.path     HTTP.Path: the target without its query string, folded (below)
//	srt           SRT: one sample, the request's last byte to the response's first
//	dtt           DTT: one sample, the response's first byte to its last
//	client.bytes, client.packets, server.bytes, server.packets
//	              the request's and the response's bytes (header and body, as sent) and
//	              the segments that carried them
//
// Paths stay few: each segment of a path that is an id is folded, digits only to {n}, a UUID,
// a hex string of 8 or more characters with a digit, or a base64-like token of 16 or more
// (letters of both cases and digits) to {id}: /api/users/42 reads /api/users/{n},
// /orders/550e8400-e29b-41d4-a716-446655440000 reads /orders/{id}. Bytes outside printable
// ASCII are percent-encoded; the path is cut at records.MaxPathLen. The records of one hour
// carry at most Config.MaxHTTPPaths (10,000) distinct paths: past it a record's path reads
// HTTPOther, "{other}" (Stats.HTTPPathsLeftOut); hosts share the bound on server names
// (Config.MaxServerNames, past it "", Stats.NamesLeftOut).
//
// A request without a response becomes a record of status 0 and no srt or dtt when the
// connection is reset, the server closes it, or the conversation ends (its idle timeout, the
// end of a file); Stats.HTTPUnanswered. A response to no request seen (the probe started
// after the request, or lost it) is counted, Stats.HTTPOrphans, and makes no record: without
// its request it has no method, path or srt, and a record of a status alone would count in
// every grouping by path or host as a request of none.
//
// Memory is bounded: about 900 bytes of state per HTTP connection, taken from the table when
// its first request line is seen and given back when the connection ends; a header block that
// spans segments is buffered, at most HTTPMaxHeader (4 KiB) per direction, in buffers the
// table lends, at most HTTPMaxBuffers (2,048, 8 MiB) at once. A header block past that bound,
// or with no buffer free, gives its connection up (Stats.HTTPTooLong). Segments missing where
// their bytes matter (in a header block, a chunk-size line, between messages) give the
// connection up too (Stats.HTTPGaps), as do segments reordered there (the probe keeps no
// segment for later); missing bytes inside a body of known length are passed over, and bytes
// seen before (retransmissions) skipped. A connection given up (Stats.HTTPGivenUp; its requests waiting are dropped) is
// followed again from the client's next segment that begins with a request line.
//
// # Application layers
//
// Besides the transport's records the probe emits one Record of Layer records.LayerDNS per
// DNS query and one of records.LayerTLS per TLS handshake, as each ends. Its Time is the slice
// in which the query or the ClientHello was sent; Client and Server are the conversation's
// addresses and ports; it counts no bytes or packets.
//
//   - DNS over UDP and TCP to port 53; over TCP each message follows its two-byte length,
//     several per connection, across segments, and only its first 512 bytes are read (they
//     always hold the header and the question). A query (opcode QUERY, one question) is
//     remembered and its answer matched as for server names above (the same id, addresses,
//     ports, name and type; an answer without a question, as some FORMERRs are, by its id).
//     The record says DNS.QName (lower case, no final dot, "" for the root, a dot or backslash
//     in a label escaped with a backslash and other bytes outside '!'..'~' as \DDD, cut at
//     records.MaxQNameLen never within an escape), QType, RCode (the header's four bits;
//     EDNS's extended codes are not read) and SRT, from the query's packet to the answer's.
//     A query unanswered after Config.DNSTimeout (10 s; noticed at the next DNS packet or
//     slice end), or still waiting at Flush, is a record of RCode records.RCodeTimeout without
//     SRT (Stats.DNSTimeouts). The records of one hour carry at most Config.MaxDNSNames
//     (10,000) distinct names (the root's "" aside): past it a record's name reads HTTPOther,
//     "{other}" (Stats.DNSNamesLeftOut), since a query needs no answer to make a record and
//     whoever sends packets chooses its name. A query repeated with its id, ports and
//     question before its timeout is the same query, timed from the first. A truncated
//     answer (TC) answers its UDP query, and the retry over TCP is a second query with its
//     own record. At most Config.MaxDNSQueries (8,192, about 2 MB) wait for their answer: a
//     new one past it forgets the oldest, which then has no record (Stats.DNSForgotten).
//     Answers over TCP name servers too, from what their first 512 bytes hold.
//   - TLS in any TCP conversation whose client's first payload begins a handshake record
//     holding a ClientHello, whatever the port (STARTTLS, and a capture that begins after the
//     ClientHello, are not read). Each direction's TLS records are read in order, and the
//     handshake messages in them across records and segments; a gap in a direction (a segment
//     lost before the probe, reordered, or cut by the snap length) ends its reading, and the
//     record says what was read before. ServerName is the ClientHello's SNI (within
//     Config.MaxServerNames as the transport's; also the conversation's name when its first
//     segment did not hold it all); TLS.Version is the ServerHello's, or its
//     supported_versions' where present; TLS.Cipher its cipher suite (a HelloRetryRequest
//     waits for the next ServerHello). With TLS 1.2 and older the server's Certificate
//     message is in clear: the leaf's NotAfter (Unix seconds) and Issuer (its distinguished
//     name in RFC 2253's form, cut at records.MaxIssuerLen), parsed with crypto/x509 once per
//     certificate (the latest 1,024 remembered); the records of one hour carry at most
//     Config.MaxTLSIssuers (10,000) distinct issuers: past it a record's issuer reads
//     HTTPOther, "{other}" (Stats.TLSIssuersLeftOut), since whoever answers a ClientHello
//     chooses its certificate. CT runs from the ClientHello's first packet to the packet
//     that ends the server's Finished: with TLS 1.2 and older, its first handshake record
//     after its ChangeCipherSpec; with TLS 1.3, where the Finished is encrypted, the end of
//     the server's first flight: its last packet before the client sends again (the
//     client's Finished), which a server sends right after its Finished. A handshake that
//     does not get so far (no ServerHello, an alert, a gap) has its record,
//     without CT, when its conversation ends; one whose ClientHello was not read has none.
//     A message that crosses records or segments is copied, at most MaxTLSMessage (64 KiB) of
//     it a direction (of a certificate chain, only the leaf), and at most MaxTLSBuffered
//     (64 MiB) for all conversations at once; past either, a certificate is skipped
//     (Stats.TLSCertsSkipped) and a hello is not read.
//
// The decoding allocates nothing per packet: what it allocates is per query or handshake (the
// name, the record's histogram, the handshake's state, a message copied across segments), and
// a conversation past its handshake costs two pointer tests a packet. On BenchmarkMix (DNS,
// HTTPS and HTTP, one packet in eight decoded) it costs about 20 % more CPU a packet.
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
//	dns.qname, dns.qtype, dns.rcode    DNS.QName, QType, RCode (records of LayerDNS)
//	tls.version, tls.cipher, tls.not_after, tls.issuer   TLS.Version, Cipher, NotAfter, Issuer (LayerTLS)
//	application                        the operator's rules, then the server port (never ServerName)
//	exporter, in_if                    the sensor's address and the interface's index
//	layer (FROM), http.*               Layer, HTTP (records of LayerHTTP, see "HTTP")
//
// Stores keep the sums and counts (not averages) so that rollups add them exactly.
package capture
