package collect

import (
	"encoding/binary"
	"net/netip"
)

// parseHeader reads the addresses, protocol, ports and IP length of a sampled packet header
// of the given sFlow format (Ethernet, possibly VLAN-tagged, or a bare IPv4 or IPv6 packet).
// It reads only what the header holds: a truncated header gives what it can, or ok false.
func parseHeader(format uint32, b []byte) (f Flow, ok bool) {
	switch format {
	case headerEthernet:
		if len(b) < 14 {
			return Flow{}, false
		}
		etherType, i := binary.BigEndian.Uint16(b[12:]), 14
		for tags := 0; (etherType == 0x8100 || etherType == 0x88a8) && tags < 2 && len(b) >= i+4; tags++ {
			etherType, i = binary.BigEndian.Uint16(b[i+2:]), i+4
		}
		switch etherType {
		case 0x0800:
			return parseIPv4(b[i:])
		case 0x86dd:
			return parseIPv6(b[i:])
		}
	case headerIPv4:
		return parseIPv4(b)
	case headerIPv6:
		return parseIPv6(b)
	}
	return Flow{}, false
}

func parseIPv4(b []byte) (Flow, bool) {
	if len(b) < 20 || b[0]>>4 != 4 {
		return Flow{}, false
	}
	f := Flow{
		Protocol: b[9],
		Src:      netip.AddrFrom4([4]byte(b[12:16])),
		Dst:      netip.AddrFrom4([4]byte(b[16:20])),
		Bytes:    uint64(binary.BigEndian.Uint16(b[2:])),
	}
	ihl := int(b[0]&0x0f) * 4
	if binary.BigEndian.Uint16(b[6:])&0x1fff == 0 && ihl >= 20 { // the first fragment holds the ports
		ports(&f, b[min(ihl, len(b)):])
	}
	return f, true
}

func parseIPv6(b []byte) (Flow, bool) {
	if len(b) < 40 || b[0]>>4 != 6 {
		return Flow{}, false
	}
	f := Flow{
		Protocol: b[6],
		Src:      netip.AddrFrom16([16]byte(b[8:24])).Unmap(),
		Dst:      netip.AddrFrom16([16]byte(b[24:40])).Unmap(),
		Bytes:    40 + uint64(binary.BigEndian.Uint16(b[4:])),
	}
	ports(&f, b[40:])
	return f, true
}

// ports reads the ports of a TCP, UDP, SCTP or UDP-Lite header when b holds them.
func ports(f *Flow, b []byte) {
	if hasPorts(f.Protocol) && len(b) >= 4 {
		f.SrcPort, f.DstPort = binary.BigEndian.Uint16(b), binary.BigEndian.Uint16(b[2:])
	}
}
