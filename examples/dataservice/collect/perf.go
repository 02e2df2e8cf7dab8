package collect

import (
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

// Perf is what an exporter measured of a flow's TCP conversation, in the records' units.
// Client and server are as the exporter names them; nProbe's retransmissions are by direction.
type Perf struct {
	// ClientRTT, ServerRTT, CT, SRT and DTT go to the record's client.rtt, server.rtt, ct,
	// srt and dtt.
	ClientRTT, ServerRTT, CT, SRT, DTT records.Timing
	// ClientRetrans and ServerRetrans are retransmitted packets by side (Cisco), SrcRetrans
	// and DstRetrans by the direction of the flow (nProbe).
	ClientRetrans, ServerRetrans, SrcRetrans, DstRetrans uint64
}

func (p *Perf) empty() bool {
	return p.ClientRTT.Samples == 0 && p.ServerRTT.Samples == 0 && p.CT.Samples == 0 && p.SRT.Samples == 0 && p.DTT.Samples == 0 &&
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
	pen, typ := v.Pen, v.Type
	if !v.PenProvided {
		switch {
		case typ >= ntopV9Base:
			pen, typ = penNtop, typ-ntopV9Base
		case typ >= ciscoV9Bit:
			pen, typ = penCisco, typ-ciscoV9Bit
		default:
			return 0, false
		}
	}
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

// add keeps the value of a vendor field; false when its length is not that of an unsigned
// integer (1 to 8 bytes, IPFIX's reduced-size encodings included): the field is ignored.
func (p *perfFields) add(slot int, val []byte) bool {
	if len(val) == 0 || len(val) > 8 {
		return false
	}
	p.vals[slot], p.has = uintOf(val), p.has|1<<slot
	return true
}

func (p *perfFields) get(slot int) (uint64, bool) { return p.vals[slot], p.has&(1<<slot) != 0 }

// perf returns the measures the fields make, and how many values it could not use (too large
// for a record).
func (p *perfFields) perf() (out Perf, ignored int) {
	use := func(t records.Timing, ok bool) records.Timing {
		if !ok {
			ignored++
		}
		return t
	}
	// nProbe: one value per flow, 0 when not measured; a latency is half the round trip, both
	// from the handshake, whose time is thus the two round trips.
	c, hasC := p.get(slotNtopClient)
	if hasC && c > 0 {
		out.ClientRTT = use(msTiming(2*min(c, records.MaxCount), 1, 0, 0))
	}
	s, hasS := p.get(slotNtopServer)
	if hasS && s > 0 {
		out.ServerRTT = use(msTiming(2*min(s, records.MaxCount), 1, 0, 0))
	}
	if out.ClientRTT.Samples > 0 && out.ServerRTT.Samples > 0 {
		out.CT = use(msTiming(2*(c+s), 1, 0, 0)) // both at most MaxCount/1000
	}
	if v, ok := p.get(slotNtopAppl); ok && v > 0 {
		out.SRT = use(msTiming(v, 1, 0, 0))
	}
	out.SrcRetrans, _ = p.get(slotNtopRetransIn)
	out.DstRetrans, _ = p.get(slotNtopRetransOut)

	// Cisco: sums with their counts, minimums and maximums.
	conns, hasConns := p.get(slotNewConns)
	if t, ok := p.ciscoTiming(slotClientSum, slotClientMin, slotClientMax, conns, hasConns); t != nil {
		out.ClientRTT = use(*t, ok)
	}
	if t, ok := p.ciscoTiming(slotServerSum, slotServerMin, slotServerMax, conns, hasConns); t != nil {
		out.ServerRTT = use(*t, ok)
	}
	if t, ok := p.ciscoTiming(slotNwkSum, slotNwkMin, slotNwkMax, conns, hasConns); t != nil {
		out.CT = use(*t, ok)
	}
	resps, hasResps := p.get(slotResponses)
	if t, ok := p.ciscoTiming(slotRespSum, slotRespMin, slotRespMax, resps, hasResps); t != nil {
		out.SRT = use(*t, ok)
	}
	// The data transfer time is what a transaction took beyond its response time: the
	// difference of their averages, for each transaction.
	trans, hasTrans := p.get(slotTransactions)
	transSum, hasTransSum := p.get(slotTransSum)
	if hasTransSum && out.SRT.Samples > 0 && (!hasTrans || trans > 0) {
		if !hasTrans {
			trans = 1
		}
		rt := float64(out.SRT.Sum) / float64(out.SRT.Samples) // µs
		if avg := float64(transSum) * 1000 / float64(trans); avg >= rt {
			t, ok := records.TimingOf((avg-rt)/1e6, trans)
			if ok && trans == 1 {
				t.Hist.Add(float64(t.Sum) / 1e6)
			}
			out.DTT = use(t, ok)
		}
	}
	out.ClientRetrans, _ = p.get(slotClientRetrans)
	out.ServerRetrans, _ = p.get(slotServerRetrans)
	return out, ignored
}

// ciscoTiming returns the Timing of a Cisco time: its sum over count samples (one when the
// exporter sends no count), nil when the record has no sum or no sample; ok is false when the
// values are too large for a record (the Timing is then empty).
func (p *perfFields) ciscoTiming(sumSlot, minSlot, maxSlot int, count uint64, hasCount bool) (*records.Timing, bool) {
	sum, ok := p.get(sumSlot)
	if !ok || (hasCount && count == 0) || (!hasCount && sum == 0) {
		return nil, true
	}
	if !hasCount {
		count = 1
	}
	lo, hasLo := p.get(minSlot)
	hi, hasHi := p.get(maxSlot)
	if !hasLo || !hasHi {
		lo, hi = 0, 0
	}
	t, ok := msTiming(sum, count, lo, hi)
	return &t, ok
}

// msTiming returns the Timing of n samples adding up to sum milliseconds, and false (with an
// empty Timing) when the sum or n passes what a record holds. Its histogram holds the
// samples when they are known: one sample is its value; of more, when lo and hi (their
// minimum and maximum, 0 and 0 when unknown) are consistent with the sum, one at lo, one at
// hi and the others at the average of the rest (so that max() is exact and percentiles near).
// Otherwise the histogram is empty and the samples count at their average.
func msTiming(sum, n, lo, hi uint64) (records.Timing, bool) {
	const maxMs = records.MaxCount / 1000
	if sum > maxMs || n > records.MaxCount {
		return records.Timing{}, false
	}
	t := records.Timing{Sum: sum * 1000, Samples: n}
	sec := func(ms uint64) float64 { return float64(ms) / 1000 }
	switch {
	case n == 1:
		t.Hist.Add(sec(sum))
	case hi > 0 && lo <= hi && hi <= sum && lo+hi <= sum:
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
	return t, true
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
