package collect

import (
	"net/netip"

	"github.com/netsampler/goflow2/v2/decoders/netflow"
)

// Information elements read from NetFlow v9 and IPFIX records (the numbers are shared).
const (
	ieBytes          = 1
	iePackets        = 2
	ieProtocol       = 4
	ieSrcPort        = 7
	ieSrcIPv4        = 8
	ieInIf           = 10
	ieDstPort        = 11
	ieDstIPv4        = 12
	ieOutIf          = 14
	ieLastUptime     = 21
	ieFirstUptime    = 22
	ieSrcIPv6        = 27
	ieDstIPv6        = 28
	ieSamplingInt    = 34 // samplingInterval
	ieSamplerID      = 48 // samplerId
	ieSamplerRandom  = 50 // samplerRandomInterval
	ieStartSeconds   = 150
	ieEndSeconds     = 151
	ieStartMillis    = 152
	ieEndMillis      = 153
	ieSysInitMillis  = 160 // systemInitTimeMilliseconds
	ieSelectorID     = 302 // selectorId
	iePacketInterval = 305 // samplingPacketInterval
	iePacketSpace    = 306 // samplingPacketSpace
)

// Cisco AVC's connection fields (enterprise 9, NetFlow v9 types 32768 higher, as its ART
// fields): a record keyed by connection names its client and server rather than a source and
// a destination, and counts what each sent (layer 3 bytes, as NetFlow counts them).
const (
	ciscoServerBytes   = 8337  // connection server counter bytes network long
	ciscoClientBytes   = 8338  // connection client counter bytes network long
	ciscoClientPackets = 9265  // connection client counter packets long
	ciscoServerPackets = 9266  // connection server counter packets long
	ciscoClientIPv4    = 12236 // connection client ipv4 address
	ciscoServerIPv4    = 12237
	ciscoClientIPv6    = 12238
	ciscoServerIPv6    = 12239
	ciscoClientPort    = 12240 // connection client transport port
	ciscoServerPort    = 12241
)

// conn is what a record of a connection says (Cisco's connection fields).
type conn struct {
	client, server          netip.Addr
	clientPort, serverPort  uint16
	clientBytes, clientPkts uint64
	serverBytes, serverPkts uint64
}

// ciscoElement returns the Cisco element of a field (an IPFIX element of enterprise 9, or a v9
// type from 32768 up to nProbe's), and false for another field.
func ciscoElement(v *netflow.DataField) (uint16, bool) {
	if v.PenProvided {
		return v.Type, v.Pen == penCisco
	}
	return v.Type - ciscoV9Bit, v.Type >= ciscoV9Bit && v.Type < ntopV9Base
}

// add keeps the value of a connection field; false when the field is not one.
func (c *conn) add(v *netflow.DataField, val []byte) bool {
	id, ok := ciscoElement(v)
	if !ok {
		return false
	}
	switch id {
	case ciscoClientIPv4, ciscoClientIPv6:
		c.client, _ = netip.AddrFromSlice(val)
	case ciscoServerIPv4, ciscoServerIPv6:
		c.server, _ = netip.AddrFromSlice(val)
	case ciscoClientPort:
		c.clientPort = uint16(uintOf(val))
	case ciscoServerPort:
		c.serverPort = uint16(uintOf(val))
	case ciscoClientBytes:
		c.clientBytes = uintOf(val)
	case ciscoServerBytes:
		c.serverBytes = uintOf(val)
	case ciscoClientPackets:
		c.clientPkts = uintOf(val)
	case ciscoServerPackets:
		c.serverPkts = uintOf(val)
	default:
		return false
	}
	return true
}

// uintOf reads an unsigned big-endian number of up to 8 bytes (IPFIX allows shorter encodings).
func uintOf(b []byte) uint64 {
	var n uint64
	for _, c := range b[:min(len(b), 8)] {
		n = n<<8 | uint64(c)
	}
	return n
}

// netflowRecord turns the values of one data record into a Flow, scaled by the sampling rate
// the record names (its own interval, its sampler's, or its domain's), with the measures of
// nProbe's and Cisco AVC's fields (Perf); ok is false for a record without addresses. ignored
// counts the vendor fields it could not use: of a length no unsigned integer has, or of a
// value past 32 bits.
func netflowRecord(values []netflow.DataField, h netflowHeader, dom *domain) (f Flow, ignored int, ok bool) {
	var m netflowMeta
	var perf perfFields
	var cn conn
	var app appFields
	for i := range values {
		v := &values[i]
		val, _ := v.Value.([]byte)
		if v.PenProvided || v.Type >= ciscoV9Bit { // an enterprise's field, or a vendor's v9 type
			if slot, ok := perfSlot(v); ok {
				if !perf.add(slot, val) {
					ignored++
				}
			} else if !cn.add(v, val) {
				if slot, ok := appSlot(v); ok && i < 0xFFFF {
					app[slot] = uint16(i + 1)
				}
			}
			continue
		}
		switch v.Type {
		case ieBytes:
			f.Bytes = uintOf(val)
		case iePackets:
			f.Packets = uintOf(val)
		case ieProtocol:
			f.Protocol = uint8(uintOf(val))
		case ieSrcPort:
			f.SrcPort = uint16(uintOf(val))
		case ieDstPort:
			f.DstPort = uint16(uintOf(val))
		case ieSrcIPv4, ieSrcIPv6:
			f.Src, _ = netip.AddrFromSlice(val)
		case ieDstIPv4, ieDstIPv6:
			f.Dst, _ = netip.AddrFromSlice(val)
		case ieInIf:
			f.InIf = uint32(uintOf(val))
		case ieOutIf:
			f.OutIf = uint32(uintOf(val))
		case ieFirstUptime:
			m.first, m.hasFirst = uintOf(val), true
		case ieLastUptime:
			m.last, m.hasLast = uintOf(val), true
		case ieStartSeconds:
			m.startS = uintOf(val)
		case ieEndSeconds:
			m.endS = uintOf(val)
		case ieStartMillis:
			m.startMs = uintOf(val)
		case ieEndMillis:
			m.endMs = uintOf(val)
		case ieSysInitMillis:
			m.sysInit = uintOf(val)
		case ieSamplingInt, ieSamplerRandom:
			m.rate = uintOf(val)
		case ieSamplerID, ieSelectorID:
			m.sampler, m.hasSampler = uintOf(val), true
		}
	}
	if !f.Src.IsValid() && !f.Dst.IsValid() && cn.client.IsValid() && cn.server.IsValid() {
		f.fromConn(&cn)
	}
	if !f.Src.IsValid() || !f.Dst.IsValid() {
		return Flow{}, ignored, false
	}
	if perf.has != 0 {
		p, more := perf.perf()
		if ignored += more; !p.empty() {
			f.Perf = &p
		}
	}
	if app != (appFields{}) {
		var more int
		f.App, more = app.app(values)
		ignored += more
	}
	f.Src, f.Dst = f.Src.Unmap(), f.Dst.Unmap()
	f.scaleBy(m.sampleRate(dom))
	f.Start, f.End = m.span(h, dom)
	return f, ignored, true
}

// netflowMeta holds the fields of a data record that the Flow's values derive from: its times
// in their several forms and its sampling.
type netflowMeta struct {
	first, last, startS, endS, startMs, endMs, sysInit uint64
	hasFirst, hasLast                                  bool
	rate, sampler                                      uint64
	hasSampler                                         bool
}

// fromConn makes f the record of connection cn: the client's traffic, and the server's in
// reverse.
func (f *Flow) fromConn(cn *conn) {
	f.Src, f.Dst, f.SrcPort, f.DstPort, f.SrcIsClient = cn.client, cn.server, cn.clientPort, cn.serverPort, true
	f.Bytes, f.Packets, f.RevBytes, f.RevPackets = cn.clientBytes, cn.clientPkts, cn.serverBytes, cn.serverPkts
}

// sampleRate is the record's sampling rate: its own interval, else its sampler's or its
// domain's (dom, nil when none); at least 1.
func (m *netflowMeta) sampleRate(dom *domain) uint64 {
	rate := m.rate
	if rate == 0 && dom != nil {
		if r, ok := dom.samplers[uint32(m.sampler)]; ok && m.hasSampler {
			rate = uint64(r)
		} else {
			rate = uint64(dom.rate)
		}
	}
	return max(rate, 1)
}

// scaleBy scales f's counts by the sampling rate.
func (f *Flow) scaleBy(rate uint64) {
	f.Bytes, f.Packets = scale(f.Bytes, rate), scale(f.Packets, rate)
	f.RevBytes, f.RevPackets = scale(f.RevBytes, rate), scale(f.RevPackets, rate)
	if p := f.Perf; p != nil { // retransmitted packets estimate the real ones, as packets do
		for _, n := range []*uint64{&p.ClientRetrans, &p.ServerRetrans, &p.SrcRetrans, &p.DstRetrans} {
			*n = scale(*n, rate)
		}
	}
}

// span returns the record's start and end in Unix milliseconds, from whichever of its times
// it has (milliseconds, seconds, or uptimes of the exporter of header h, an IPFIX one's from
// its boot time or its domain's dom), else the export time.
func (m *netflowMeta) span(h netflowHeader, dom *domain) (start, end int64) {
	export := h.secs * 1000
	start, end = export, export
	switch {
	case m.startMs != 0 || m.endMs != 0:
		start, end = int64(m.startMs), int64(m.endMs)
	case m.startS != 0 || m.endS != 0:
		start, end = int64(m.startS)*1000, int64(m.endS)*1000
	case h.version == 9 && m.hasFirst && m.hasLast:
		// Uptimes wrap every 49.7 days: the difference is what counts.
		start = export - int64(int32(h.uptime-uint32(m.first)))
		end = export - int64(int32(h.uptime-uint32(m.last)))
	case h.version == 10 && m.hasFirst && m.hasLast:
		sysInit := m.sysInit
		if sysInit == 0 && dom != nil {
			sysInit = uint64(dom.sysInit)
		}
		if sysInit != 0 {
			start, end = nearUptime(int64(sysInit), m.first, export), nearUptime(int64(sysInit), m.last, export)
		}
	}
	if start == 0 {
		start = end
	}
	return start, end
}

// nearUptime returns the time of an IPFIX 32-bit uptime (flowStartSysUpTime) of an exporter
// booted at boot (Unix ms): boot+uptime moved by whole wraps of the 32-bit counter (49.7 days)
// to the nearest of the export time. The counter wraps on exporters up for long, and softflowd
// replaying a capture sends times before its own start as negative uptimes.
func nearUptime(boot int64, uptime uint64, export int64) int64 {
	const wrap = 1 << 32
	t := boot + int64(uptime&(wrap-1))
	return t + floorDiv(export-t+wrap/2, wrap)*wrap
}

// options keeps what an options data record says of its domain: a sampling rate (v9
// samplingInterval or samplerRandomInterval; IPFIX packet interval and space), for one sampler
// when the record is scoped by one, and the IPFIX exporter's boot time.
func options(dom *domain, rec netflow.OptionsDataRecord) {
	var rate, interval, space, sampler uint64
	var hasSampler, hasInterval bool
	for _, vs := range [][]netflow.DataField{rec.ScopesValues, rec.OptionsValues} {
		for _, v := range vs {
			if v.PenProvided {
				continue
			}
			val, _ := v.Value.([]byte)
			switch v.Type {
			case ieSamplingInt, ieSamplerRandom:
				rate = uintOf(val)
			case iePacketInterval:
				interval, hasInterval = uintOf(val), true
			case iePacketSpace:
				space = uintOf(val)
			case ieSamplerID, ieSelectorID:
				sampler, hasSampler = uintOf(val), true
			case ieSysInitMillis:
				dom.sysInit = int64(uintOf(val))
			}
		}
	}
	if hasInterval && interval > 0 {
		rate = (interval + space) / interval // select interval packets, skip space
	}
	if rate == 0 || rate > 1<<32-1 {
		return
	}
	if !hasSampler {
		dom.rate = uint32(rate)
		return
	}
	if dom.samplers == nil {
		dom.samplers = make(map[uint32]uint32)
	}
	if _, ok := dom.samplers[uint32(sampler)]; ok || len(dom.samplers) < maxSamplers {
		dom.samplers[uint32(sampler)] = uint32(rate)
	}
}
