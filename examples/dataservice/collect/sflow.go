package collect

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"

	"github.com/netsampler/goflow2/v2/decoders/sflow"
)

// Formats of sFlow sampled headers (sFlow v5 header_protocol).
const (
	headerEthernet = 1
	headerIPv4     = 11
	headerIPv6     = 12
)

// decodeSFlow decodes one sFlow v5 datagram received at now (Unix milliseconds: sFlow samples
// carry no time of their own) and appends a flow per flow sample: one packet, scaled by the
// sample's sampling rate, with the length of its IP packet, as NetFlow counts bytes.
func decodeSFlow(b []byte, now int64, out []Flow) ([]Flow, error) {
	if err := checkSFlow(b); err != nil {
		return out, err
	}
	var p sflow.Packet
	if err := sflow.DecodeMessageVersion(bytes.NewBuffer(b), &p); err != nil {
		return out, err
	}
	for _, s := range p.Samples {
		var rate, in, outIf uint32
		var recs []sflow.FlowRecord
		switch s := s.(type) {
		case sflow.FlowSample:
			rate, in, outIf, recs = s.SamplingRate, s.Input, s.Output, s.Records
		case sflow.ExpandedFlowSample:
			rate, in, outIf, recs = s.SamplingRate, s.InputIfValue, s.OutputIfValue, s.Records
		default:
			continue // counter and drop samples
		}
		f, ok := sampledPacket(recs)
		if !ok {
			continue
		}
		r := uint64(max(rate, 1))
		f.Start, f.End = now, now
		f.Bytes, f.Packets = scale(f.Bytes, r), r
		// The top two bits of a compact interface value are a format: 0 is an ifIndex.
		if in>>30 == 0 {
			f.InIf = in
		}
		if outIf>>30 == 0 {
			f.OutIf = outIf
		}
		out = append(out, f)
	}
	return out, nil
}

// sampledPacket returns the flow of one sampled packet (Bytes its IP length) from the first
// record that describes it: a sampled header, or sampled IPv4 or IPv6 data.
func sampledPacket(recs []sflow.FlowRecord) (Flow, bool) {
	for _, r := range recs {
		switch d := r.Data.(type) {
		case sflow.SampledHeader:
			if f, ok := parseHeader(d.Protocol, d.HeaderData); ok {
				return f, true
			}
		case sflow.SampledIPv4:
			if f, ok := sampledIP(d.SampledIPBase); ok {
				return f, true
			}
		case sflow.SampledIPv6:
			if f, ok := sampledIP(d.SampledIPBase); ok {
				return f, true
			}
		}
	}
	return Flow{}, false
}

func sampledIP(d sflow.SampledIPBase) (Flow, bool) {
	src, ok1 := netip.AddrFromSlice(d.SrcIP)
	dst, ok2 := netip.AddrFromSlice(d.DstIP)
	if !ok1 || !ok2 || d.Protocol > 255 {
		return Flow{}, false
	}
	return Flow{Src: src.Unmap(), Dst: dst.Unmap(), Protocol: uint8(d.Protocol),
		SrcPort: uint16(d.SrcPort), DstPort: uint16(d.DstPort), Bytes: uint64(d.Length)}, true
}

// errSFlowCounts is the error of an sFlow datagram that claims more samples, or a sample more
// records, than its bytes can hold.
var errSFlowCounts = errors.New("sFlow datagram claims more samples or records than it holds")

// sflowCountAt is where each format of sample (flow, counter, expanded flow, expanded counter,
// drop) holds its record count, from the start of its body.
var sflowCountAt = [...]int{1: 28, 2: 8, 3: 40, 4: 12, 5: 28}

// checkSFlow refuses an sFlow datagram that claims more samples than its bytes can hold, or a
// sample more records than its own bytes can (every sample and record takes 8 bytes at least):
// goflow2 allocates room for the count it reads before reading anything (16 bytes a sample, 24 a
// record, up to 1,000 records a sample and 4 billion in an expanded flow sample), which made 1,000
// empty samples of 1,000 records each cost 24 MB of heap in a datagram of 40 KB. It walks the
// samples as goflow2 does, reading only their headers.
func checkSFlow(b []byte) error {
	if len(b) < 8 {
		return nil // goflow2 answers with its own error
	}
	i := 8 + 4
	if binary.BigEndian.Uint32(b[4:]) == 2 {
		i = 8 + 16
	}
	i += 12 // sub-agent, sequence number, uptime
	if len(b) < i+4 {
		return nil
	}
	n := binary.BigEndian.Uint32(b[i:])
	i += 4
	if n > uint32((len(b)-i)/8) {
		return errSFlowCounts
	}
	for range n {
		if len(b)-i < 8 {
			return nil
		}
		format, length := binary.BigEndian.Uint32(b[i:]), binary.BigEndian.Uint32(b[i+4:])
		i += 8
		if length > uint32(len(b)-i) {
			return nil
		}
		if format < uint32(len(sflowCountAt)) && format > 0 {
			at := sflowCountAt[format]
			if int(length) >= at+4 && binary.BigEndian.Uint32(b[i+at:]) > (length-uint32(at)-4)/8 {
				return errSFlowCounts
			}
		}
		i += int(length)
	}
	return nil
}
