package collect

import (
	"math"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/netsampler/goflow2/v2/decoders/netflow"
)

// Vendors' response-time and retransmission fields (the package doc's table says how each maps).
//
// nProbe's (ntop, enterprise number 35632) are published in nProbe's list of information
// elements ("nprobe -H"): in IPFIX they are enterprise elements of ntop's number, in NetFlow v9
// plain field types 57472 higher. Cisco AVC's ART fields (enterprise number 9) are published
// in Cisco's AVC Field Definition Guide for Third-Party Customers: in IPFIX enterprise elements
// of Cisco's number, in NetFlow v9 (IOS XE) field types 32768 higher (9316, "connection delay
// network to-client sum", is v9 type 42084). All are unsigned integers; every time is in
// milliseconds.
const (
	penNtop    = 35632
	penCisco   = 9
	ntopV9Base = 57472
	ciscoV9Bit = 0x8000

	ntopRetransIn     = 109 // RETRANSMITTED_IN_PKTS: retransmitted packets src->dst
	ntopRetransOut    = 110 // RETRANSMITTED_OUT_PKTS: retransmitted packets dst->src
	ntopClientLatency = 123 // CLIENT_NW_LATENCY_MS: network RTT/2 client <-> nProbe
	ntopServerLatency = 124 // SERVER_NW_LATENCY_MS: network RTT/2 nProbe <-> server
	ntopApplLatency   = 125 // APPL_LATENCY_MS: application latency, a.k.a. server response time

	ciscoClientRetrans = 9268 // connection client counter packets retransmitted
	ciscoServerRetrans = 9270 // connection server counter packets retransmitted
	ciscoTransactions  = 9272 // connection transaction counter complete
	ciscoTransSum      = 9273 // connection transaction duration sum (total transaction time)
	ciscoTransMax      = 9274
	ciscoTransMin      = 9275
	ciscoNewConns      = 9282 // connection new connections (the network times' samples)
	ciscoNwkSum        = 9313 // connection delay network client-to-server sum (network time)
	ciscoNwkMax        = 9314
	ciscoNwkMin        = 9315
	ciscoResponses     = 9292 // connection server counter responses
	ciscoRespSum       = 9303 // connection delay response to-server sum (response time)
	ciscoRespMax       = 9304
	ciscoRespMin       = 9305
	ciscoClientNwkSum  = 9316 // connection delay network to-client sum (client network time)
	ciscoClientNwkMax  = 9317
	ciscoClientNwkMin  = 9318
	ciscoServerNwkSum  = 9319 // connection delay network to-server sum (server network time)
	ciscoServerNwkMax  = 9320
	ciscoServerNwkMin  = 9321
)

// Perf is what an exporter measured of a flow's TCP conversation, as it sent it (the records'
// Timings, with their histograms, are made of it as the flow's records are: a flow holds only
// these 112 bytes). Client and server are as the exporter names them; nProbe's
// retransmissions are by direction.
type Perf struct {
	// ClientRTT, ServerRTT, CT and SRT go to the record's client.rtt, server.rtt, ct and srt;
	// Trans, the total transaction times, less SRT to its dtt.
	ClientRTT, ServerRTT, CT, SRT, Trans msTimes
	// ClientRetrans and ServerRetrans are retransmitted packets by side (Cisco), SrcRetrans
	// and DstRetrans by the direction of the flow (nProbe).
	ClientRetrans, ServerRetrans, SrcRetrans, DstRetrans uint64
}

// msTimes is the samples of a time as an exporter sends them: their sum, count, minimum and
// maximum, in milliseconds (Lo and Hi 0 when unknown). N is 0 when there is none. 32 bits
// hold every value both vendors define, and a sum's microseconds stay within a record's
// bounds.
type msTimes struct{ Sum, N, Lo, Hi uint32 }

func (p *Perf) empty() bool {
	return p.ClientRTT.N == 0 && p.ServerRTT.N == 0 && p.CT.N == 0 && p.SRT.N == 0 && p.Trans.N == 0 &&
		p.ClientRetrans == 0 && p.ServerRetrans == 0 && p.SrcRetrans == 0 && p.DstRetrans == 0
}

// perfFields gathers the values of the vendor fields of one data record, a slot each.
type perfFields struct {
	vals [perfSlots]uint64
	has  uint32 // a bit per slot
}

// The slots of perfFields.
const (
	slotNtopRetransIn = iota
	slotNtopRetransOut
	slotNtopClient
	slotNtopServer
	slotNtopAppl
	slotClientRetrans
	slotServerRetrans
	slotTransactions
	slotTransSum
	slotTransMax
	slotTransMin
	slotNewConns
	slotResponses
	slotRespSum
	slotRespMax
	slotRespMin
	slotNwkSum
	slotNwkMax
	slotNwkMin
	slotClientSum
	slotClientMax
	slotClientMin
	slotServerSum
	slotServerMax
	slotServerMin
	perfSlots
)

// perfSlot returns the slot of a vendor field, and false for any other field. v9 fields are
// recognised by their type, IPFIX fields by their enterprise number and element.
func perfSlot(v *netflow.DataField) (int, bool) {
	pen, typ := vendorElement(v)
	switch pen {
	case penNtop:
		switch typ {
		case ntopRetransIn:
			return slotNtopRetransIn, true
		case ntopRetransOut:
			return slotNtopRetransOut, true
		case ntopClientLatency:
			return slotNtopClient, true
		case ntopServerLatency:
			return slotNtopServer, true
		case ntopApplLatency:
			return slotNtopAppl, true
		}
	case penCisco:
		switch {
		case typ == ciscoClientRetrans:
			return slotClientRetrans, true
		case typ == ciscoServerRetrans:
			return slotServerRetrans, true
		case typ >= ciscoTransactions && typ <= ciscoTransMin:
			return slotTransactions + int(typ-ciscoTransactions), true
		case typ == ciscoNewConns:
			return slotNewConns, true
		case typ == ciscoResponses:
			return slotResponses, true
		case typ >= ciscoRespSum && typ <= ciscoRespMin:
			return slotRespSum + int(typ-ciscoRespSum), true
		case typ >= ciscoNwkSum && typ <= ciscoNwkMin:
			return slotNwkSum + int(typ-ciscoNwkSum), true
		case typ >= ciscoClientNwkSum && typ <= ciscoServerNwkMin:
			return slotClientSum + int(typ-ciscoClientNwkSum), true
		}
	}
	return 0, false
}

// vendorElement returns the enterprise number and element of a field: an IPFIX field's own,
// nProbe's or Cisco's for a v9 type of theirs, pen 0 for any other field.
func vendorElement(v *netflow.DataField) (pen uint32, typ uint16) {
	switch {
	case v.PenProvided:
		return v.Pen, v.Type
	case v.Type >= ntopV9Base:
		return penNtop, v.Type - ntopV9Base
	case v.Type >= ciscoV9Bit:
		return penCisco, v.Type - ciscoV9Bit
	}
	return 0, v.Type
}

// add keeps the value of a vendor field; false when its length is not that of an unsigned
// integer (1 to 8 bytes, IPFIX's reduced-size encodings included) or its value passes 32 bits
// (every field of both vendors is unsigned32): the field is ignored.
func (p *perfFields) add(slot int, val []byte) bool {
	if len(val) == 0 || len(val) > 8 {
		return false
	}
	v := uintOf(val)
	if v > math.MaxUint32 {
		return false
	}
	p.vals[slot], p.has = v, p.has|1<<slot
	return true
}

func (p *perfFields) get(slot int) (uint32, bool) {
	return uint32(p.vals[slot]), p.has&(1<<slot) != 0
}

// perf returns the measures the fields make, and how many values it could not use (nProbe's
// latencies whose round trip passes 32 bits).
func (p *perfFields) perf() (out Perf, ignored int) {
	// nProbe: one value per flow, 0 when not measured; a latency is half the round trip, both
	// from the handshake, whose time is thus the two round trips.
	one := func(ms uint32, times uint64) msTimes {
		v := uint64(ms) * times
		if v > math.MaxUint32 {
			ignored++
			return msTimes{}
		}
		return msTimes{Sum: uint32(v), N: 1}
	}
	if c, _ := p.get(slotNtopClient); c > 0 {
		out.ClientRTT = one(c, 2)
	}
	if s, _ := p.get(slotNtopServer); s > 0 {
		out.ServerRTT = one(s, 2)
	}
	if out.ClientRTT.N > 0 && out.ServerRTT.N > 0 {
		out.CT = one(out.ClientRTT.Sum/2+out.ServerRTT.Sum/2, 2)
	}
	if a, _ := p.get(slotNtopAppl); a > 0 {
		out.SRT = one(a, 1)
	}
	in, _ := p.get(slotNtopRetransIn)
	outs, _ := p.get(slotNtopRetransOut)
	out.SrcRetrans, out.DstRetrans = uint64(in), uint64(outs)

	// Cisco: sums over their counts, with their minimums and maximums.
	for _, t := range []struct {
		to                   *msTimes
		sum, lo, hi, counter int
	}{
		{&out.ClientRTT, slotClientSum, slotClientMin, slotClientMax, slotNewConns},
		{&out.ServerRTT, slotServerSum, slotServerMin, slotServerMax, slotNewConns},
		{&out.CT, slotNwkSum, slotNwkMin, slotNwkMax, slotNewConns},
		{&out.SRT, slotRespSum, slotRespMin, slotRespMax, slotResponses},
		{&out.Trans, slotTransSum, slotTransMin, slotTransMax, slotTransactions},
	} {
		if m, ok := p.ciscoTimes(t.sum, t.lo, t.hi, t.counter); ok {
			*t.to = m
		}
	}
	c, _ := p.get(slotClientRetrans)
	s, _ := p.get(slotServerRetrans)
	out.ClientRetrans, out.ServerRetrans = uint64(c), uint64(s)
	return out, ignored
}

// ciscoTimes returns the samples of a Cisco time: its sum over the count in slot counter (one
// sample when the exporter sends no count), its minimum and maximum when both are sent; false
// when the record has no sum or no sample.
func (p *perfFields) ciscoTimes(sum, lo, hi, counter int) (msTimes, bool) {
	m := msTimes{N: 1}
	var ok, hasN bool
	if m.Sum, ok = p.get(sum); !ok {
		return msTimes{}, false
	}
	if n, has := p.get(counter); has {
		m.N, hasN = n, true
	}
	if m.N == 0 || (!hasN && m.Sum == 0) {
		return msTimes{}, false
	}
	l, hasLo := p.get(lo)
	h, hasHi := p.get(hi)
	if hasLo && hasHi {
		m.Lo, m.Hi = l, h
	}
	return m, true
}

// timing returns the Timing of m's samples in microseconds. Its histogram holds the samples
// when they are known: one sample is its value; of more, when the minimum and maximum are
// consistent with the sum, one at each and the others at the average of the rest (so that
// max() is exact and percentiles near). Otherwise the histogram is empty and the samples count
// at their average.
func (m msTimes) timing() records.Timing {
	if m.N == 0 {
		return records.Timing{}
	}
	t := records.Timing{Sum: uint64(m.Sum) * 1000, Samples: uint64(m.N)}
	sec := func(ms uint64) float64 { return float64(ms) / 1000 }
	sum, n, lo, hi := uint64(m.Sum), uint64(m.N), uint64(m.Lo), uint64(m.Hi)
	switch {
	case n == 1:
		t.Hist.Add(sec(sum))
	case hi > 0 && lo <= hi && lo+hi <= sum:
		rest := sum - lo - hi
		if n == 2 && rest != 0 {
			break
		}
		if n > 2 {
			avg := float64(rest) / float64(n-2)
			if avg < float64(lo) || avg > float64(hi) {
				break
			}
			t.Hist.AddIndex(histogram.Index(avg/1000), n-2)
		}
		t.Hist.Add(sec(lo))
		t.Hist.Add(sec(hi))
	}
	return t
}

// dtt returns the data transfer time the total transaction times trans make with the
// response times resp: what a transaction took beyond its response, the difference of their
// averages, one sample a transaction (none when either is missing or the difference
// negative).
func dtt(trans, resp msTimes) records.Timing {
	if trans.N == 0 || resp.N == 0 {
		return records.Timing{}
	}
	diff := float64(trans.Sum)/float64(trans.N) - float64(resp.Sum)/float64(resp.N) // ms
	if diff < 0 {
		return records.Timing{}
	}
	t, _ := records.TimingOf(diff/1000, uint64(trans.N)) // at most 2^32 ms, 2^32 samples
	if trans.N == 1 {
		t.Hist.Add(float64(t.Sum) / 1e6)
	}
	return t
}

// addTiming adds the samples of src to dst, unless the sum would pass what a record holds.
// A histogram left empty (samples averaged) counts its samples at their average.
func addTiming(dst *records.Timing, src records.Timing) {
	switch {
	case src.Samples == 0:
		return
	case dst.Samples == 0:
		*dst = src
		return
	case dst.Sum+src.Sum > records.MaxCount || dst.Samples+src.Samples > records.MaxCount:
		return
	}
	h := dst.Buckets().Clone()
	h.Merge(src.Buckets())
	dst.Sum, dst.Samples, dst.Hist = dst.Sum+src.Sum, dst.Samples+src.Samples, h
}
