package capture

import (
	"encoding/binary"
	"errors"
	"net/netip"
)

// LinkType is a capture's link-layer header type, numbered as pcap's LINKTYPE_ values.
type LinkType uint16

// The link types the decoder reads.
const (
	LinkEthernet LinkType = 1   // Ethernet II, with any number (up to MaxVLANs) of 802.1Q/802.1ad tags
	LinkRaw      LinkType = 101 // bare IPv4 or IPv6 packets
	LinkLinuxSLL LinkType = 113 // Linux "cooked" capture (tcpdump -i any)
	LinkIPv4     LinkType = 228 // bare IPv4 packets
	LinkIPv6     LinkType = 229 // bare IPv6 packets
)

// IP protocol numbers the probe tracks.
const (
	ProtoICMP   = 1
	ProtoTCP    = 6
	ProtoUDP    = 17
	ProtoICMPv6 = 58
)

// TCP flags, as in Packet.Flags.
const (
	FlagFIN = 0x01
	FlagSYN = 0x02
	FlagRST = 0x04
	FlagPSH = 0x08
	FlagACK = 0x10
)

// Decoder limits: a packet beyond them is refused with ErrMalformed.
const (
	// MaxVLANs is the most VLAN tags (802.1Q, 802.1ad QinQ) read before the EtherType.
	MaxVLANs = 4
	// MaxIPv6Headers is the most IPv6 extension headers followed to the transport header.
	MaxIPv6Headers = 8
)

// Errors of Decode. A frame that is not IP (ARP, LLDP, ...) is ErrNotIP and is merely
// counted; the others are malformed or cut too short to read.
var (
	ErrNotIP     = errors.New("capture: not an IP packet")
	ErrTruncated = errors.New("capture: packet cut short")
	ErrMalformed = errors.New("capture: malformed packet")
	ErrLinkType  = errors.New("capture: unsupported link type")
)

// Packet is what the decoder reads from one frame. Decode fills it in place, so that one
// Packet serves every frame without an allocation; Payload points into the frame.
type Packet struct {
	// Time is the capture time, Unix nanoseconds (set by the caller from the frame).
	Time int64
	// FrameLen is the frame's length on the wire (Frame.Len), set by the caller as Time is;
	// 0, or less than the frame, stands for the frame's length.
	FrameLen int
	// Len is the IP packet's length: what its header states (IPv4 total length, IPv6 40 +
	// payload length), at most what the frame carried on the wire from the IP header on, so
	// that a header claiming more than was sent counts only what was; a snap length that
	// cut the capture does not lower it. These are the bytes a record counts.
	Len int
	// VLANs is the number of VLAN tags; VLAN the innermost tag's VLAN ID.
	VLANs, VLAN uint16
	// Src and Dst are the IP addresses.
	Src, Dst netip.Addr
	// Protocol is the transport protocol (after IPv6 extension headers).
	Protocol uint8
	// Fragment is set for any fragment of a fragmented datagram; LaterFragment for those
	// after the first, which carry no transport header (ports, flags and payload are zero).
	Fragment, LaterFragment bool
	// SrcPort and DstPort are TCP or UDP ports.
	SrcPort, DstPort uint16
	// Flags, Seq, Ack and Window are the TCP header's.
	Flags    uint8
	Seq, Ack uint32
	Window   uint16
	// ICMPType and ICMPCode are ICMP's or ICMPv6's.
	ICMPType, ICMPCode uint8
	// PayloadLen is the transport payload's length as the IP length states it; Payload is
	// what the capture kept of it (shorter when the snap length cut it).
	PayloadLen int
	Payload    []byte
	// uncaptured is how much of the frame the wire carried beyond what was captured.
	uncaptured int
}

// Decode reads one frame of link type lt into p, without allocating.
func Decode(lt LinkType, frame []byte, p *Packet) error {
	t, wire := p.Time, p.FrameLen
	*p = Packet{Time: t, FrameLen: wire, uncaptured: max(wire-len(frame), 0)}
	switch lt {
	case LinkEthernet:
		return decodeEthernet(frame, p)
	case LinkLinuxSLL:
		if len(frame) < 16 {
			return ErrTruncated
		}
		return decodeEtherType(binary.BigEndian.Uint16(frame[14:]), frame[16:], p)
	case LinkRaw:
		if len(frame) == 0 {
			return ErrTruncated
		}
		switch frame[0] >> 4 {
		case 4:
			return decodeIPv4(frame, p)
		case 6:
			return decodeIPv6(frame, p)
		}
		return ErrNotIP
	case LinkIPv4:
		return decodeIPv4(frame, p)
	case LinkIPv6:
		return decodeIPv6(frame, p)
	}
	return ErrLinkType
}

func decodeEthernet(b []byte, p *Packet) error {
	if len(b) < 14 {
		return ErrTruncated
	}
	et := binary.BigEndian.Uint16(b[12:])
	b = b[14:]
	for et == 0x8100 || et == 0x88a8 || et == 0x9100 {
		if p.VLANs == MaxVLANs {
			return ErrMalformed
		}
		if len(b) < 4 {
			return ErrTruncated
		}
		p.VLANs++
		p.VLAN = binary.BigEndian.Uint16(b) & 0x0fff
		et = binary.BigEndian.Uint16(b[2:])
		b = b[4:]
	}
	return decodeEtherType(et, b, p)
}

func decodeEtherType(et uint16, b []byte, p *Packet) error {
	switch et {
	case 0x0800:
		return decodeIPv4(b, p)
	case 0x86dd:
		return decodeIPv6(b, p)
	}
	return ErrNotIP
}

func decodeIPv4(b []byte, p *Packet) error {
	if len(b) < 20 {
		return ErrTruncated
	}
	if b[0]>>4 != 4 {
		return ErrMalformed
	}
	ihl := int(b[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(b[2:]))
	if ihl < 20 || total < ihl {
		return ErrMalformed
	}
	if len(b) < ihl {
		return ErrTruncated
	}
	total = min(total, len(b)+p.uncaptured) // what the wire carried, at least ihl
	p.Len = total
	p.Src = netip.AddrFrom4([4]byte(b[12:16]))
	p.Dst = netip.AddrFrom4([4]byte(b[16:20]))
	p.Protocol = b[9]
	frag := binary.BigEndian.Uint16(b[6:])
	offset := frag & 0x1fff
	p.Fragment = frag&0x2000 != 0 || offset != 0
	if offset != 0 {
		p.LaterFragment = true
		return nil
	}
	return decodeTransport(b[ihl:min(total, len(b))], total-ihl, p)
}

func decodeIPv6(b []byte, p *Packet) error {
	if len(b) < 40 {
		return ErrTruncated
	}
	if b[0]>>4 != 6 {
		return ErrMalformed
	}
	plen := min(int(binary.BigEndian.Uint16(b[4:])), len(b)+p.uncaptured-40) // what the wire carried
	p.Len = 40 + plen
	p.Src = netip.AddrFrom16([16]byte(b[8:24]))
	p.Dst = netip.AddrFrom16([16]byte(b[24:40]))
	next := b[6]
	b = b[40:min(len(b), 40+plen)]
	rest := plen // the IP length that remains, however much was captured
	for range MaxIPv6Headers {
		var hlen int
		switch next {
		case 0, 43, 60: // hop-by-hop, routing, destination options
			if len(b) < 8 {
				return ErrTruncated
			}
			hlen = (int(b[1]) + 1) * 8
		case 51: // authentication header
			if len(b) < 8 {
				return ErrTruncated
			}
			hlen = (int(b[1]) + 2) * 4
		case 44: // fragment
			if len(b) < 8 {
				return ErrTruncated
			}
			hlen = 8
			offset := binary.BigEndian.Uint16(b[2:]) >> 3
			p.Fragment = true
			if offset != 0 {
				p.LaterFragment = true
				p.Protocol = b[0]
				return nil
			}
		default:
			p.Protocol = next
			return decodeTransport(b, rest, p)
		}
		if hlen > rest {
			return ErrMalformed
		}
		if len(b) < hlen {
			return ErrTruncated
		}
		next = b[0]
		b = b[hlen:]
		rest -= hlen
	}
	return ErrMalformed
}

// decodeTransport reads the transport header from b (what was captured), with n the length
// the IP header gives it.
func decodeTransport(b []byte, n int, p *Packet) error {
	switch p.Protocol {
	case ProtoTCP:
		if len(b) < 20 {
			return ErrTruncated
		}
		off := int(b[12]>>4) * 4
		if off < 20 || off > n {
			return ErrMalformed
		}
		if len(b) < off {
			return ErrTruncated
		}
		p.SrcPort = binary.BigEndian.Uint16(b)
		p.DstPort = binary.BigEndian.Uint16(b[2:])
		p.Seq = binary.BigEndian.Uint32(b[4:])
		p.Ack = binary.BigEndian.Uint32(b[8:])
		p.Flags = b[13]
		p.Window = binary.BigEndian.Uint16(b[14:])
		p.PayloadLen = n - off
		p.Payload = b[off:]
	case ProtoUDP:
		if len(b) < 8 {
			return ErrTruncated
		}
		if n < 8 {
			return ErrMalformed
		}
		p.SrcPort = binary.BigEndian.Uint16(b)
		p.DstPort = binary.BigEndian.Uint16(b[2:])
		p.PayloadLen = n - 8
		p.Payload = b[8:]
	case ProtoICMP, ProtoICMPv6:
		if len(b) < 2 {
			return ErrTruncated
		}
		p.ICMPType, p.ICMPCode = b[0], b[1]
	}
	return nil
}
