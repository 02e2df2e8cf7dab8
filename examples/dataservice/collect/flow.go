package collect

import (
	"math/bits"
	"net/netip"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Flow is one direction of traffic as an exporter reports it: what Src sent to Dst between
// Start and End, already scaled by the sampling rate (and what Dst sent back, when the
// exporter reports a connection as one record). Its fields are ordered to keep it small: a
// datagram may decode into thousands.
type Flow struct {
	// Start and End are the times of the first and last packet, in Unix milliseconds.
	Start, End int64
	// Src and Dst are the addresses; IPv4-mapped addresses are unmapped.
	Src, Dst netip.Addr
	// Bytes and Packets are what Src sent, times the sampling rate.
	Bytes, Packets uint64
	// RevBytes and RevPackets are what Dst sent, times the sampling rate, when the exporter
	// reports both directions in one record (Cisco's connection records); else 0.
	RevBytes, RevPackets uint64
	// Perf is what the exporter measured of the conversation (nProbe's and Cisco AVC's
	// fields); nil when it sent none (most flows: a pointer keeps them small).
	Perf *Perf
	// App is what the exporter decoded of the application layer (nProbe's HTTP and DNS
	// plugins, Cisco AVC's HTTP host and URIs); nil when it sent none.
	App *App
	// InIf and OutIf are the interfaces the traffic entered and left the exporter by; 0: unknown.
	InIf, OutIf uint32
	// SrcPort and DstPort are the TCP, UDP or SCTP ports; 0 for other protocols.
	SrcPort, DstPort uint16
	// Protocol is the IP protocol number.
	Protocol uint8
	// SrcIsClient says that the exporter named Src the client and Dst the server (Cisco's
	// connection records), rather than the ports deciding.
	SrcIsClient bool
}

// maxSpread is the most time slices one flow's counts are spread over: the counts of a flow
// longer than that go to its last maxSpread slices (the earliest of them takes what came before).
const maxSpread = 60

// hasPorts says whether the ports of protocol p mean something (TCP, UDP, SCTP, UDP-Lite);
// other protocols' "ports" (ICMP type and code, for some exporters) are set to 0.
func hasPorts(p uint8) bool { return p == records.TCP || p == records.UDP || p == 132 || p == 136 }

// dstIsServer says whether the destination of f is the server of the conversation: the one
// the exporter named so (SrcIsClient), else the side with the lower port, so that a well-known
// port (below 1024) wins over an ephemeral one; when the ports are equal (protocols without
// ports), the side with the lower address. Both directions of a conversation therefore name
// the same server.
func dstIsServer(f *Flow) bool {
	if f.SrcIsClient {
		return true
	}
	if f.SrcPort != f.DstPort {
		return f.DstPort < f.SrcPort
	}
	return f.Dst.Compare(f.Src) <= 0
}

// appendRecords appends to dst the records of f as exporter saw it, one per time slice of
// slice seconds that f spans (at most maxSpread), its counts spread over them in proportion to
// the time f spent in each, so that they add up exactly to f's. Its Perf goes to the first
// of them, the slice of the handshake (to a record of f's first slice without counts when f
// counts no traffic).
func appendRecords(dst []records.Record, f *Flow, exporter netip.Addr, slice int64) []records.Record {
	from := len(dst)
	dst = appendCounts(dst, f, exporter, slice)
	if f.Perf == nil && f.App == nil {
		return dst
	}
	if len(dst) == from { // no traffic: one record of f's start
		at := *f
		at.End = at.Start
		dst = appendCounts(dst, &at, exporter, slice)
	}
	if f.Perf != nil {
		addPerf(&dst[from], f)
	}
	if f.App != nil {
		dst = appendLayers(dst, f, dst[from])
	}
	return dst
}

// appendLayers appends the records of f's application layer (f.App) to dst: of f's first
// slice, with its transport record tr's addresses, ports, interfaces and exporter, and the
// exporter's srt when it is of one request. A flow the server sent (as nProbe's uniflows) is
// the answer to a request its reverse flow already carries: it makes none.
func appendLayers(dst []records.Record, f *Flow, tr records.Record) []records.Record {
	if !dstIsServer(f) {
		return dst
	}
	r := records.Record{Time: tr.Time, Protocol: tr.Protocol, Exporter: tr.Exporter, InIf: tr.InIf, OutIf: tr.OutIf,
		Application: tr.Application}
	r.Client.IP, r.Client.Port, r.Server.IP, r.Server.Port = tr.Client.IP, tr.Client.Port, tr.Server.IP, tr.Server.Port
	a := f.App
	var srt records.Timing
	if f.Perf != nil && len(a.HTTP)+boolInt(a.DNS != nil) == 1 {
		srt = f.Perf.SRT.timing()
	}
	for _, h := range a.HTTP {
		l := r
		l.Layer, l.HTTP, l.SRT = records.LayerHTTP, h, srt
		dst = append(dst, l)
	}
	if a.DNS != nil {
		r.Layer, r.DNS, r.SRT = records.LayerDNS, *a.DNS, srt
		dst = append(dst, r)
	}
	return dst
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// appendCounts appends the records of f's counts, as appendRecords says.
func appendCounts(dst []records.Record, f *Flow, exporter netip.Addr, slice int64) []records.Record {
	if !hasPorts(f.Protocol) {
		f.SrcPort, f.DstPort = 0, 0
	}
	f.Bytes, f.Packets = min(f.Bytes, records.MaxCount), min(f.Packets, records.MaxCount)
	f.RevBytes, f.RevPackets = min(f.RevBytes, records.MaxCount), min(f.RevPackets, records.MaxCount)
	r := records.Record{Protocol: f.Protocol, Exporter: exporter}
	sender, receiver := &r.Client, &r.Server
	if dstIsServer(f) {
		r.Client.IP, r.Client.Port = f.Src, f.SrcPort
		r.Server.IP, r.Server.Port = f.Dst, f.DstPort
		r.InIf, r.OutIf = f.InIf, f.OutIf
	} else {
		r.Client.IP, r.Client.Port = f.Dst, f.DstPort
		r.Server.IP, r.Server.Port = f.Src, f.SrcPort
		r.InIf, r.OutIf = f.OutIf, f.InIf // the way the client's traffic would take
		sender, receiver = receiver, sender
	}
	r.Application = records.Application(r.Protocol, r.Server.Port)

	sliceMs := slice * 1000
	start, end := f.Start, max(f.End, f.Start)
	first, last := floorDiv(start, sliceMs), floorDiv(end, sliceMs)
	if last-first >= maxSpread {
		first = last - maxSpread + 1
		start = max(start, first*sliceMs)
	}
	counts := [4]uint64{f.Bytes, f.Packets, f.RevBytes, f.RevPackets}
	set := func(c [4]uint64) {
		sender.Bytes, sender.Packets, receiver.Bytes, receiver.Packets = c[0], c[1], c[2], c[3]
	}
	if first == last || end == start {
		r.Time = last * slice
		set(counts)
		return append(dst, r)
	}
	span := uint64(end - start)
	var done [4]uint64
	for s := first; s <= last; s++ {
		upTo := min(end, (s+1)*sliceMs) - start // time of f up to the end of this slice
		var c [4]uint64
		for i, n := range counts {
			c[i] = share(n, uint64(upTo), span) - done[i]
			done[i] += c[i]
		}
		if c == [4]uint64{} {
			continue
		}
		r.Time = s * slice
		set(c)
		dst = append(dst, r)
	}
	return dst
}

// addPerf adds the measures of f to r, a record of f: nProbe's retransmissions by direction
// (the source's to the side that sent f), the others by the side the exporter names.
func addPerf(r *records.Record, f *Flow) {
	p := f.Perf
	addTiming(&r.Client.RTT, p.ClientRTT.timing())
	addTiming(&r.Server.RTT, p.ServerRTT.timing())
	addTiming(&r.CT, p.CT.timing())
	addTiming(&r.SRT, p.SRT.timing())
	addTiming(&r.DTT, dtt(p.Trans, p.SRT))
	src, dst := &r.Client, &r.Server
	if !dstIsServer(f) {
		src, dst = dst, src
	}
	src.Retrans = min(src.Retrans+min(p.SrcRetrans, records.MaxCount), records.MaxCount)
	dst.Retrans = min(dst.Retrans+min(p.DstRetrans, records.MaxCount), records.MaxCount)
	r.Client.Retrans = min(r.Client.Retrans+min(p.ClientRetrans, records.MaxCount), records.MaxCount)
	r.Server.Retrans = min(r.Server.Retrans+min(p.ServerRetrans, records.MaxCount), records.MaxCount)
}

// scale returns n*rate, or records.MaxCount when that is more.
func scale(n, rate uint64) uint64 {
	hi, lo := bits.Mul64(n, rate)
	if hi != 0 || lo > records.MaxCount {
		return records.MaxCount
	}
	return lo
}

// share returns total*part/whole rounded down, without overflow (part <= whole).
func share(total, part, whole uint64) uint64 {
	hi, lo := bits.Mul64(total, part)
	q, _ := bits.Div64(hi, lo, whole)
	return q
}

// floorDiv divides rounding towards minus infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
