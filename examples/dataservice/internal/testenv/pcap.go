package testenv

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"
)

// Packet is one IP packet of a capture that WritePcap writes: a TCP, UDP or other packet
// between two addresses of the same family, carrying Payload bytes after its headers.
type Packet struct {
	Time             time.Time
	Src, Dst         netip.Addr
	Protocol         uint8 // 6 TCP, 17 UDP, anything else: no transport header
	SrcPort, DstPort uint16
	Payload          int
	// Data, when not nil, is the payload itself, in place of Payload zero bytes.
	Data []byte
}

// IPLength returns the length of p's IP packet, which flow exporters count as its bytes.
func (p Packet) IPLength() int {
	n := p.payloadLen() + transportLen(p.Protocol)
	if p.Src.Is4() {
		return 20 + n
	}
	return 40 + n
}

func (p Packet) payloadLen() int {
	if p.Data != nil {
		return len(p.Data)
	}
	return p.Payload
}

func transportLen(proto uint8) int {
	switch proto {
	case 6:
		return 20
	case 17:
		return 8
	}
	return 0
}

// WritePcap writes pkts as Ethernet frames to a pcap file at path.
func WritePcap(t testing.TB, path string, pkts []Packet) {
	t.Helper()
	var out []byte
	out = binary.LittleEndian.AppendUint32(out, 0xa1b2c3d4)
	out = binary.LittleEndian.AppendUint16(out, 2)
	out = binary.LittleEndian.AppendUint16(out, 4)
	out = binary.LittleEndian.AppendUint32(out, 0)
	out = binary.LittleEndian.AppendUint32(out, 0)
	out = binary.LittleEndian.AppendUint32(out, 65535)
	out = binary.LittleEndian.AppendUint32(out, 1) // Ethernet
	for _, p := range pkts {
		frame := frame(p)
		out = binary.LittleEndian.AppendUint32(out, uint32(p.Time.Unix()))
		out = binary.LittleEndian.AppendUint32(out, uint32(p.Time.Nanosecond()/1000))
		out = binary.LittleEndian.AppendUint32(out, uint32(len(frame)))
		out = binary.LittleEndian.AppendUint32(out, uint32(len(frame)))
		out = append(out, frame...)
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// frame builds the Ethernet frame of p, with valid IPv4 header checksums.
func frame(p Packet) []byte {
	b := []byte{0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00}
	l4 := make([]byte, transportLen(p.Protocol))
	if len(l4) > 0 {
		binary.BigEndian.PutUint16(l4, p.SrcPort)
		binary.BigEndian.PutUint16(l4[2:], p.DstPort)
	}
	switch p.Protocol {
	case 6:
		l4[12] = 5 << 4 // data offset
		l4[13] = 0x10   // ACK
		binary.BigEndian.PutUint16(l4[14:], 65535)
	case 17:
		binary.BigEndian.PutUint16(l4[4:], uint16(8+p.payloadLen()))
	}
	if p.Src.Is4() {
		ip := make([]byte, 20)
		ip[0], ip[8], ip[9] = 0x45, 64, p.Protocol
		binary.BigEndian.PutUint16(ip[2:], uint16(p.IPLength()))
		s, d := p.Src.As4(), p.Dst.As4()
		copy(ip[12:], s[:])
		copy(ip[16:], d[:])
		var sum uint32
		for i := 0; i < 20; i += 2 {
			sum += uint32(binary.BigEndian.Uint16(ip[i:]))
		}
		for sum > 0xffff {
			sum = sum>>16 + sum&0xffff
		}
		binary.BigEndian.PutUint16(ip[10:], ^uint16(sum))
		b = append(b, ip...)
	} else {
		b[12], b[13] = 0x86, 0xdd
		ip := make([]byte, 40)
		ip[0], ip[6], ip[7] = 0x60, p.Protocol, 64
		binary.BigEndian.PutUint16(ip[4:], uint16(p.IPLength()-40))
		s, d := p.Src.As16(), p.Dst.As16()
		copy(ip[8:], s[:])
		copy(ip[24:], d[:])
		b = append(b, ip...)
	}
	b = append(b, l4...)
	if p.Data != nil {
		return append(b, p.Data...)
	}
	return append(b, make([]byte, p.Payload)...)
}

// ClientHellos returns the TLS ClientHello that Go's TLS client sends for each of names, in
// the order of names (one handshake started for the first, its name replaced for the others:
// names must be of one length).
func ClientHellos(t testing.TB, names []string) [][]byte {
	t.Helper()
	c, s := net.Pipe()
	defer s.Close()
	go func() {
		tls.Client(c, &tls.Config{ServerName: names[0]}).Handshake()
		c.Close()
	}()
	buf := make([]byte, 4096)
	n, err := s.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	hello := buf[:n]
	at := bytes.Index(hello, []byte(names[0]))
	if at < 0 {
		t.Fatalf("no server name in the ClientHello")
	}
	out := make([][]byte, len(names))
	for i, name := range names {
		if len(name) != len(names[0]) {
			t.Fatalf("names of different lengths: %q, %q", names[0], name)
		}
		out[i] = bytes.Clone(hello)
		copy(out[i][at:], name)
	}
	return out
}
