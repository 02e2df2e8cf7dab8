package collect

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"

	"github.com/netsampler/goflow2/v2/decoders/netflow"
	"github.com/netsampler/goflow2/v2/decoders/netflowlegacy"
)

// errShort is the error of a datagram shorter than its header says.
var errShort = errors.New("datagram shorter than its header")

// netflowHeader is what the v9 and IPFIX headers tell about the records that follow.
type netflowHeader struct {
	version uint16
	domain  uint32 // source ID (v9), observation domain ID (IPFIX)
	secs    int64  // export time, Unix seconds
	uptime  uint32 // v9: milliseconds since the exporter booted, at secs
}

// decodeNetFlow decodes one NetFlow v5, v9 or IPFIX datagram of ts.ex and appends its flows
// to out. Data sets whose template is unknown are counted in the exporter, not errors.
func decodeNetFlow(b []byte, ts *templateStore, out []Flow) ([]Flow, error) {
	if len(b) < 2 {
		return out, errShort
	}
	switch v := binary.BigEndian.Uint16(b); v {
	case 5:
		return decodeV5(b, out)
	case 9:
		if len(b) < 20 {
			return out, errShort
		}
		h := netflowHeader{version: 9, uptime: binary.BigEndian.Uint32(b[4:]),
			secs: int64(binary.BigEndian.Uint32(b[8:])), domain: binary.BigEndian.Uint32(b[16:])}
		return decodeSets(bytes.NewBuffer(b[20:]), h, ts, out)
	case 10:
		if len(b) < 16 {
			return out, errShort
		}
		n := int(binary.BigEndian.Uint16(b[2:]))
		if n < 16 || n > len(b) {
			return out, errShort
		}
		h := netflowHeader{version: 10, secs: int64(binary.BigEndian.Uint32(b[4:])),
			domain: binary.BigEndian.Uint32(b[12:])}
		return decodeSets(bytes.NewBuffer(b[16:n]), h, ts, out)
	default:
		return out, fmt.Errorf("not NetFlow v5, v9 or IPFIX (version %d)", v)
	}
}

// decodeSets decodes every set (flowset) of a v9 or IPFIX datagram, one at a time through
// goflow2. goflow2's own message decoder stops a v9 datagram after as many sets as the header's
// count, which RFC 3954 defines as a count of records: exporters such as softflowd send more
// sets than that count, and their data would be lost. The length of the datagram is what
// bounds the loop here.
func decodeSets(payload *bytes.Buffer, h netflowHeader, ts *templateStore, out []Flow) ([]Flow, error) {
	for payload.Len() >= 4 {
		// Template sets are screened before goflow2 decodes them; a set from which records were
		// refused is replaced by a shorter copy (nil: nothing left).
		from := payload
		b := payload.Bytes()
		if n := min(int(binary.BigEndian.Uint16(b[2:])), len(b)); n >= 4 && isTemplateSet(h.version, binary.BigEndian.Uint16(b)) {
			screened, err := ts.screenTemplates(h.version, h.domain, b[:n])
			if err != nil {
				return out, err
			}
			if len(screened) != n {
				payload.Next(n)
				if screened == nil {
					continue
				}
				from = bytes.NewBuffer(screened)
			}
		}
		set, err := netflow.DecodeMessageCommonFlowSet(from, ts, h.domain, h.version)
		switch {
		case errors.Is(err, netflow.ErrorTemplateNotFound):
			ts.ex.noTemplate.Add(1)
			continue
		case errors.Is(err, errTemplateRefused):
			continue // counted by the store; the set's bytes are consumed
		case err != nil:
			return out, err
		}
		switch set := set.(type) {
		case netflow.DataFlowSet:
			dom := ts.domain(h.version, h.domain)
			for _, rec := range set.Records {
				f, ignored, ok := netflowRecord(rec.Values, h, dom)
				if ignored > 0 {
					ts.ex.ignoredFields.Add(uint64(ignored))
				}
				if ok {
					out = append(out, f)
				}
			}
		case netflow.OptionsDataFlowSet:
			if dom := ts.domain(h.version, h.domain); dom != nil {
				for _, rec := range set.Records {
					options(dom, rec)
				}
			}
		}
	}
	return out, nil
}

// decodeV5 decodes a NetFlow v5 datagram, whose header holds the sampling interval. A datagram
// shorter than its header's count of records is refused before goflow2 decodes it: goflow2
// allocates room for the count (up to 65,535 records, 3 MB) and returns the records it could not
// read as flows of zeros.
func decodeV5(b []byte, out []Flow) ([]Flow, error) {
	const header, record = 24, 48
	if len(b) < header || int(binary.BigEndian.Uint16(b[2:])) > (len(b)-header)/record {
		return out, errShort
	}
	var p netflowlegacy.PacketNetFlowV5
	if err := netflowlegacy.DecodeMessageVersion(bytes.NewBuffer(b), &p); err != nil {
		return out, err
	}
	rate := uint64(p.SamplingInterval & 0x3fff) // the top two bits are the sampling mode
	rate = max(rate, 1)
	base := int64(p.UnixSecs)*1000 + int64(p.UnixNSecs/1e6)
	for _, r := range p.Records {
		out = append(out, Flow{
			Start:    base - int64(int32(p.SysUptime-r.First)),
			End:      base - int64(int32(p.SysUptime-r.Last)),
			Protocol: r.Proto,
			Src:      v4(uint32(r.SrcAddr)), Dst: v4(uint32(r.DstAddr)),
			SrcPort: r.SrcPort, DstPort: r.DstPort,
			Bytes: scale(uint64(r.DOctets), rate), Packets: scale(uint64(r.DPkts), rate),
			InIf: uint32(r.Input), OutIf: uint32(r.Output),
		})
	}
	return out, nil
}

func v4(a uint32) netip.Addr {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], a)
	return netip.AddrFrom4(b)
}
