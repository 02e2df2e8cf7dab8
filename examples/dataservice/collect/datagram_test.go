package collect

import (
	"encoding/binary"
	"net/netip"
)

// Builders of NetFlow v5, v9, IPFIX and sFlow datagrams for the tests, from the RFCs (3954,
// 7011) and the sFlow v5 specification.

type field struct{ typ, length uint16 }

func be16(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }
func be32(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }

// set returns a v9 flowset or IPFIX set: its ID, its length, its body.
func set(id uint16, body []byte) []byte {
	return append(be16(be16(nil, id), uint16(4+len(body))), body...)
}

// templateRecord returns a template record (v9 and IPFIX share the form).
func templateRecord(id uint16, fields ...field) []byte {
	b := be16(be16(nil, id), uint16(len(fields)))
	for _, f := range fields {
		b = be16(be16(b, f.typ), f.length)
	}
	return b
}

// v9OptionsTemplate returns a v9 options template record.
func v9OptionsTemplate(id uint16, scopes, options []field) []byte {
	b := be16(be16(be16(nil, id), uint16(4*len(scopes))), uint16(4*len(options)))
	for _, f := range append(scopes, options...) {
		b = be16(be16(b, f.typ), f.length)
	}
	return b
}

// ipfixOptionsTemplate returns an IPFIX options template record.
func ipfixOptionsTemplate(id uint16, scopes, options []field) []byte {
	b := be16(be16(be16(nil, id), uint16(len(scopes)+len(options))), uint16(len(scopes)))
	for _, f := range append(scopes, options...) {
		b = be16(be16(b, f.typ), f.length)
	}
	return b
}

// v9 returns a NetFlow v9 datagram; count is the header's record count.
func v9(count uint16, uptime, secs, sourceID uint32, sets ...[]byte) []byte {
	b := be16(be16(nil, 9), count)
	b = be32(be32(be32(be32(b, uptime), secs), 1), sourceID)
	for _, s := range sets {
		b = append(b, s...)
	}
	return b
}

// ipfix returns an IPFIX message.
func ipfix(secs, domain uint32, sets ...[]byte) []byte {
	var body []byte
	for _, s := range sets {
		body = append(body, s...)
	}
	b := be16(be16(nil, 10), uint16(16+len(body)))
	b = be32(be32(be32(b, secs), 1), domain)
	return append(b, body...)
}

// v5Record is one NetFlow v5 flow.
type v5Record struct {
	src, dst         netip.Addr
	srcPort, dstPort uint16
	proto            uint8
	bytes, packets   uint32
	first, last      uint32 // uptimes
	in, out          uint16
}

// v5 returns a NetFlow v5 datagram; sampling is the header's 16-bit sampling field.
func v5(uptime, secs uint32, sampling uint16, recs ...v5Record) []byte {
	b := be16(be16(nil, 5), uint16(len(recs)))
	b = be32(be32(be32(be32(b, uptime), secs), 0), 1)
	b = append(b, 0, 0)
	b = be16(b, sampling)
	for _, r := range recs {
		s, d := r.src.As4(), r.dst.As4()
		b = append(append(append(b, s[:]...), d[:]...), 0, 0, 0, 0)
		b = be16(be16(b, r.in), r.out)
		b = be32(be32(be32(be32(b, r.packets), r.bytes), r.first), r.last)
		b = be16(be16(b, r.srcPort), r.dstPort)
		b = append(b, 0, 0, r.proto, 0)
		b = append(b, make([]byte, 8)...)
	}
	return b
}

// sflowSample is one sFlow flow sample of a raw packet header.
type sflowSample struct {
	rate, in, out uint32
	header        []byte // an Ethernet frame's first bytes
}

// sflowDatagram returns an sFlow v5 datagram from agent 192.0.2.1.
func sflowDatagram(samples ...sflowSample) []byte {
	b := be32(be32(nil, 5), 1)
	b = append(b, 192, 0, 2, 1)
	b = be32(be32(be32(be32(b, 0), 1), 1000), uint32(len(samples)))
	for i, s := range samples {
		hdr := append([]byte(nil), s.header...)
		for len(hdr)%4 != 0 {
			hdr = append(hdr, 0)
		}
		rec := be32(be32(be32(be32(nil, 1), uint32(len(s.header))+4), 0), uint32(len(s.header)))
		rec = append(rec, hdr...)
		body := be32(be32(be32(be32(be32(be32(be32(be32(nil, uint32(i)), 3), s.rate), s.rate*uint32(i+1)), 0), s.in), s.out), 1)
		body = be32(be32(body, 1), uint32(len(rec)))
		body = append(body, rec...)
		b = be32(be32(b, 1), uint32(len(body)))
		b = append(b, body...)
	}
	return b
}

// frame returns the first bytes of an Ethernet frame holding an IPv4 or IPv6 packet of
// ipLength bytes with TCP or UDP ports.
func frame(src, dst netip.Addr, proto uint8, srcPort, dstPort uint16, ipLength int) []byte {
	b := make([]byte, 12, 128)
	if src.Is4() {
		b = be16(b, 0x0800)
		ip := make([]byte, 20)
		ip[0], ip[8], ip[9] = 0x45, 64, proto
		binary.BigEndian.PutUint16(ip[2:], uint16(ipLength))
		s, d := src.As4(), dst.As4()
		copy(ip[12:], s[:])
		copy(ip[16:], d[:])
		b = append(b, ip...)
	} else {
		b = be16(b, 0x86dd)
		ip := make([]byte, 40)
		ip[0], ip[6] = 0x60, proto
		binary.BigEndian.PutUint16(ip[4:], uint16(ipLength-40))
		s, d := src.As16(), dst.As16()
		copy(ip[8:], s[:])
		copy(ip[24:], d[:])
		b = append(b, ip...)
	}
	return be16(be16(b, srcPort), dstPort)
}

// u32 and u16 encode data record values.
func u32(v uint32) []byte { return be32(nil, v) }
func u16(v uint16) []byte { return be16(nil, v) }
func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}
