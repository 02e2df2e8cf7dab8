// Package collect is the data service's flow collector: it receives NetFlow v5, NetFlow v9 and
// IPFIX datagrams (one UDP socket serves all three) and sFlow v5 datagrams from routers,
// switches and probes, decodes them with goflow2 (github.com/netsampler/goflow2/v2, a
// maintained decoder of all four), and stores the traffic as records through the same
// validation and batch insert as the ingest function.
//
//	c := collect.New(store, log, collect.Limits{})
//	c.Listen(collect.NetFlow, ":2055")
//	c.Listen(collect.SFlow, ":6343")
//	defer c.Close() // stores what was received
//
// # From flows to records
//
// A flow is one direction of traffic; a record is one conversation in one time slice. The
// collector maps them so:
//
//   - The server is the side with the lower port, so that a well-known port (below 1024) wins
//     over an ephemeral one, and of two ephemeral ports the lower (8080 against 50000) wins.
//     When the ports are equal (ICMP and other protocols without ports, whose ports are 0) the
//     side with the lower address is the server. Both directions of a conversation thus name
//     the same client and server.
//   - Bytes and packets go to the side that sent them: a flow from the client counts as
//     client.bytes and client.packets, a flow from the server as server.bytes and
//     server.packets. Bytes are IP bytes (headers included, link layer excluded), as NetFlow
//     counts them; an sFlow sample counts the length of its IP packet.
//   - Time slices are one minute long (Limits.Slice), as the demo generator's. A flow's counts
//     are spread over the slices between its first and last packet, in proportion to the time
//     it spent in each (at most 60 slices: a longer flow's earlier traffic goes to the earliest
//     of its last 60), and they add up exactly to the flow's. sFlow samples carry no time: they
//     count at their arrival.
//   - Both directions of one conversation, from one exporter, through the same interfaces, in
//     one slice, are merged into one record when they arrive within one batch (in practice:
//     when the exporter sends them within a second of each other). Otherwise they stay two
//     records, which every query adds up the same way.
//   - exporter is the source address of the datagrams (for sFlow too, rather than the agent
//     address inside them, since it is what the bounds below count). in_if and out_if are the
//     interfaces the client's traffic entered and left by: a flow from the server has its
//     interfaces swapped, so that both directions merge.
//   - Sampled traffic is scaled up by its sampling rate, so that totals estimate the real
//     traffic: NetFlow v5's header sampling interval; NetFlow v9 and IPFIX options data
//     (samplingInterval, samplerRandomInterval, or samplingPacketInterval and
//     samplingPacketSpace, per sampler when scoped by samplerId or selectorId, else per
//     observation domain) or the same fields in a data record; sFlow's per-sample rate.
//   - A flow whose records fail validation (a time before 1970 or more than a day ahead: an
//     exporter with a wrong clock) is dropped and counted.
//
// # Response times from nProbe and Cisco AVC
//
// When a v9 or IPFIX template carries them, nProbe's and Cisco AVC's fields give a record the
// measures of a capture probe (package capture). In IPFIX they are enterprise elements of
// ntop's number, 35632, and Cisco's, 9; in NetFlow v9 nProbe sends the same numbers 57472
// higher and Cisco (IOS XE) 32768 higher. Their definitions are those vendors publish: nProbe's
// list of information elements ("nprobe -H", also in its manual) and Cisco's AVC Field
// Definition Guide for Third-Party Customers. Every time is in milliseconds; the records keep
// microseconds.
//
//	measure         nProbe element (v9 type)           Cisco AVC element (v9 type)
//	client.rtt      123 CLIENT_NW_LATENCY_MS (57595)   9316 client network time sum (42084),
//	                times 2                            9317 max, 9318 min, over 9282 new connections (42050)
//	server.rtt      124 SERVER_NW_LATENCY_MS (57596)   9319 server network time sum (42087),
//	                times 2                            9320 max, 9321 min, over 9282
//	ct              2 × (123 + 124)                    9313 network time sum (42081), 9314 max,
//	                                                   9315 min, over 9282
//	srt             125 APPL_LATENCY_MS (57597)        9303 response time sum (42071), 9304 max,
//	                                                   9305 min, over 9292 responses (42060)
//	dtt             -                                  9273 total transaction time sum (42041) over
//	                                                   9272 transactions (42040), less the average srt
//	client.retrans  109 RETRANSMITTED_IN_PKTS (57581)  9268 client packets retransmitted (42036)
//	                (110 of a flow the server sent)
//	server.retrans  110 RETRANSMITTED_OUT_PKTS (57582) 9270 server packets retransmitted (42038)
//	                (109 of a flow the server sent)
//
// nProbe defines its network latencies as half the round trip ("Network RTT/2 client <->
// nprobe"), measured on the handshake, so the collector doubles them; the handshake's time is
// then the two round trips. nProbe's retransmissions are by direction: IN (source to
// destination) counts for the side that sent the flow, OUT for the other. Its 0 means not
// measured (no handshake seen, not TCP, or under a millisecond) and is no sample. A value of
// nProbe is one sample, and its histogram holds that value, so that percentiles work.
//
// Cisco's times are sums over a count (new connections for the network times, responses for
// the response time, transactions for the total transaction time), so a group's average is
// exact; without the count a sum is one sample. A histogram of one sample holds it; of more,
// when the minimum and the maximum are sent and consistent with the sum, one sample at each and
// the others at the average of the rest (max() of the metric is then exact); otherwise it is
// left empty and the samples count at their average. Cisco's response time is from the
// client's request to the server's first answer as the router sees it, server-side network time
// included, which is what a probe calls srt; its "server response time" (application delay,
// 9306) is that less the server network time and is not used. dtt is the average total
// transaction time less the average response time, one sample a transaction. In a record keyed
// by source and destination, Cisco's client and server are the record's (the side with the lower
// port; the handshake's for ordinary traffic).
//
// Cisco also keys records by connection: client and server addresses and ports (elements
// 12236 and 12238 the client's IPv4 and IPv6 address, 12237 and 12239 the server's, 12240 and
// 12241 their ports; v9 types 45004 to 45009) instead of a source and a destination, with what
// each side sent (8338 and 8337 the client's and the server's layer 3 bytes, 9265 and 9266
// their packets; v9 41106, 41105, 42033, 42034). Such a record (one without source and
// destination addresses) is one conversation: the client and server are the exporter's, not
// the ports' (the client's port is often not sent), and each side's counts are its own.
//
// Retransmissions are scaled by the sampling rate, as packets are. A flow's measures go to its
// first time slice, the handshake's, and add up with those of the other direction when both
// merge. A vendor field of a length no unsigned integer has (0 or more than 8 bytes), or of a
// value past 32 bits (every field of both vendors is unsigned32; so a sum's microseconds stay
// within a record's bounds), is ignored and counted per exporter
// (collector_fields_ignored_total); the rest of its record is stored. A flow keeps the times as
// the exporter sent them (112 bytes; the histograms are made with the records), so that vendor
// fields cost a datagram no more heap a byte than the worst shapes before them. Out-of-order packets
// (nProbe's OOORDER_IN_PKTS and OOORDER_OUT_PKTS) have no place in a record and are not read;
// neither vendor sends zero windows or resets.
//
// # Application layers from nProbe and Cisco AVC
//
// When a v9 or IPFIX template carries them, nProbe's HTTP and DNS plugins' fields and Cisco
// AVC's HTTP fields make, besides the flow's transport records, records of layer http or dns
// (records.LayerHTTP, LayerDNS) with the same keys as the probe's. IANA defines no element for
// these. Sources: nProbe's list of information elements ("nprobe -H", its "Plugin HTTP
// Protocol" and "Plugin DNS/LLMNR Protocol" templates); Cisco's AVC Field Definition Guide for
// Third-Party Customers, which quotes the fields as 45003 and 42125 (the enterprise bit set on
// 12235 and 9357).
//
//	key          nProbe element (v9 type)          Cisco AVC element (v9 type)
//	http.method  360 HTTP_METHOD (57832)           -
//	http.status  181 HTTP_RET_CODE (57653)         -
//	http.host    187 HTTP_HOST (57659)             12235 application http host (45003)
//	http.path    180 HTTP_URL (57652)              9357 application http uri statistics (42125)
//	dns.qname    205 DNS_QUERY (57677)             -
//	dns.qtype    207 DNS_QUERY_TYPE (57679)        -
//	dns.rcode    208 DNS_RET_CODE (57680)          -
//	srt          125 APPL_LATENCY_MS, as above     9303 response time, as above
//
// A layer record has the addresses, ports, interfaces, exporter and first time slice of its
// flow's transport record, no counts of its own, and the exporter's srt when the flow makes
// one layer record. Only a flow whose destination is the server (as the package doc's
// first section decides) makes them: nProbe's uniflows repeat a request's fields in the
// answer's flow, which would count it twice. nProbe sends the URL of a flow's last request;
// Cisco's URI statistics list URIs, each followed by a NUL and a 2-byte count: each URI
// makes one record (its count is not kept), at most maxURIs (16) a flow, and Cisco sends no
// method or status (http.status is then null, as of a request without a response).
//
// Values are made as the probe makes them and bounded where they enter: a URL loses its
// scheme and authority, query string and fragment, and is folded and cut at
// records.MaxPathLen by capture.FoldPath; the host loses its port (and an IPv6 address's
// brackets) and is lower case; the name loses its final dot and is lower case; host, name and
// method are cleaned as names from devices are (netctx.Clean: invalid UTF-8 to U+FFFD,
// controls to spaces) and cut at records.MaxHostLen, MaxQNameLen and MaxMethodLen; a string
// ends at its first NUL (nProbe pads v9's fixed lengths with them). A status outside 100..999
// (0 is no response), a type past 16 bits or a code past 12 bits is ignored and counted in
// collector_fields_ignored_total; a query without a usable code or without a name makes no
// record (none is invented). A template without these fields makes no layer record and costs
// nothing more: its records read no more than before. As the probe bounds a source's, the HTTP
// records of one exporter's flows of one hour carry at most Limits.MaxHTTPHosts (10,000) hosts,
// Limits.MaxHTTPPaths (10,000) paths and 64 methods (capture.HTTPStrings, the probe's code),
// its DNS records Limits.MaxDNSNames (10,000) query names (capture.Names):
// past them a record's host is "", its path, method or query name "{other}", counted in
// collector_layer_values_left_out_total, so that a device cannot grow the store's dictionaries
// and the rollups' groups without end. All exporters together make at most Limits.MaxHTTPBytes
// (32 MiB) of these strings an hour, so that a thousand exporters (spoofed sources among them)
// cannot each fill their own bounds.
//
// # Templates, exporters and bounds
//
// NetFlow v9 and IPFIX templates are kept per exporter, version and observation domain, and
// forgotten after Limits.TemplateTTL without a refresh (default one hour; Cisco routers resend
// every 30 minutes). A data set that arrives before its template is counted
// (collector_sets_without_template_total), never silently dropped. Every set of a datagram is
// read, up to its length: goflow2's message decoder stops a v9 datagram after as many sets as
// the header's count, but RFC 3954 counts records there and softflowd sends more sets than that
// count; the collector calls goflow2's per-set decoder itself.
//
// Everything a sender can make the collector keep is bounded, with defaults in Limits:
// datagrams waiting to be decoded (32 MiB; beyond, datagrams are dropped and counted per
// exporter), exporters (1,000; see below), templates per exporter (256) and their fields
// (4,096), observation domains per exporter and samplers per domain (64 each). A template not
// refreshed within TemplateTTL gives its place up to a new one; an IPFIX template withdrawal
// frees it at once. Spoofed sources can thus take at most MaxExporters places and a few hundred
// kilobytes each.
//
// So is the work a datagram can cause. Template sets are screened before goflow2 decodes them
// (screenTemplates): a template is refused, and counted per exporter
// (collector_templates_refused_total), when it has more than MaxFieldsPerTemplate fields (256),
// records smaller than minRecordBytes (4), or more fields than the bytes of its smallest record,
// and a template set whose records run past its end is a decode error. goflow2 allocates about
// 48 bytes a field it decodes and 70 to 100 a record; with at most one field a byte and four
// bytes a record, decoding a datagram (65,507 bytes at most) allocates at most about 100 bytes a
// byte, 6.5 MB, all garbage once its flows are mapped: FuzzAmplification fails past 128 bytes a
// byte and 64 KiB a datagram. (A template of 4,095 zero-length fields and one 1-byte field made
// each byte of a data set a 4,096-field record, 190 KB.) A NetFlow v5 datagram that counts
// more records than it holds, and an sFlow datagram that claims more samples, or a sample more
// records, than its bytes can hold, are decode errors (goflow2 allocates for the counts before
// reading). Mapping adds at most maxSpread records a flow to the batch, which BatchSize bounds.
//
// When MaxExporters are known, a datagram from a new address first makes those silent for
// TemplateTTL give their places up, then the least recently heard of those that sent no flow
// within TemplateTTL (a quarter of the table at a time, counted in
// collector_exporters_evicted_total). An exporter whose flows decoded within TemplateTTL is
// never evicted for a new one: a flood of spoofed sources replaces itself, not the routers.
// When every place is held by such an exporter, datagrams from new addresses are dropped and
// counted.
//
// # Batches and metrics
//
// Datagrams are decoded by Limits.Workers goroutines, each exporter always by the same one (so
// its templates precede its data); each worker stores a batch when it holds Limits.BatchSize
// records (10,000) or Limits.FlushInterval (one second) has passed. One goroutine stores the
// batches; a batch the store refuses is logged and counted. WriteMetrics writes, in the
// Prometheus text format, per exporter (labels exporter and protocol):
// collector_datagrams_total, collector_datagrams_dropped_total, collector_decode_errors_total,
// collector_flows_total, collector_records_invalid_total,
// collector_sets_without_template_total, collector_templates_refused_total,
// collector_fields_ignored_total and collector_templates; and collector_exporters, collector_exporters_refused_datagrams_total,
// collector_exporters_evicted_total,
// collector_records_stored_total, collector_store_errors_total and collector_records_lost_total.
// A new exporter gets one log line.
//
// Status answers the same counters per exporter (with the kinds of datagrams that decoded, its
// first and last datagram, and its flows per second over the last minute, from a ring of 60
// per-second counters each exporter keeps: MaxExporters bounds them) and in total, as the
// service's collector-status function answers them.
package collect
