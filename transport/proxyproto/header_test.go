package proxyproto

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"testing"
)

// v2 builds a binary header: command (0 LOCAL, 1 PROXY), family and transport byte, the
// address block and TLVs.
func v2(cmd, fam byte, addrs []byte) []byte {
	b := append([]byte{}, sigV2...)
	b = append(b, 0x20|cmd, fam, 0, 0)
	binary.BigEndian.PutUint16(b[14:], uint16(len(addrs)))
	return append(b, addrs...)
}

// inet4 is the address block of src:sport -> 192.0.2.1:443.
func inet4(src string, sport uint16) []byte {
	a := netip.MustParseAddr(src).As4()
	b := append(a[:], 192, 0, 2, 1)
	return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(b, sport), 443)
}

func inet6(src string, sport uint16) []byte {
	a := netip.MustParseAddr(src).As16()
	d := netip.MustParseAddr("2001:db8::1").As16()
	b := append(a[:], d[:]...)
	return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(b, sport), 443)
}

func TestParse(t *testing.T) {
	t.Parallel()
	tlv := append(inet4("203.0.113.7", 4242), 0x04, 0, 2, 'h', '2') // a NOOP TLV after the addresses
	tests := []struct {
		name string
		in   []byte
		src  string // "" : no client address
		size int
		err  bool
	}{
		{"v1 TCP4", []byte("PROXY TCP4 203.0.113.7 192.0.2.1 4242 443\r\nGET"), "203.0.113.7:4242", 43, false},
		{"v1 TCP6", []byte("PROXY TCP6 2001:db8::7 2001:db8::1 4242 443\r\n"), "[2001:db8::7]:4242", 45, false},
		{"v1 UNKNOWN", []byte("PROXY UNKNOWN whatever\r\n"), "", 24, false},
		{"v1 TCP4 with an IPv6 address", []byte("PROXY TCP4 2001:db8::7 192.0.2.1 4242 443\r\n"), "", 0, true},
		{"v1 TCP6 with an IPv4 address", []byte("PROXY TCP6 203.0.113.7 2001:db8::1 4242 443\r\n"), "", 0, true},
		{"v1 zone", []byte("PROXY TCP6 fe80::1%eth0 fe80::2 4242 443\r\n"), "", 0, true},
		{"v1 port out of range", []byte("PROXY TCP4 203.0.113.7 192.0.2.1 65536 443\r\n"), "", 0, true},
		{"v1 port with a leading zero", []byte("PROXY TCP4 203.0.113.7 192.0.2.1 0443 443\r\n"), "", 0, true},
		{"v1 two spaces", []byte("PROXY TCP4  203.0.113.7 192.0.2.1 4242 443\r\n"), "", 0, true},
		{"v1 unknown protocol", []byte("PROXY UDP4 203.0.113.7 192.0.2.1 4242 443\r\n"), "", 0, true},
		{"v1 without end of line", append([]byte("PROXY UNKNOWN "), make([]byte, 200)...), "", 0, true},
		{"v2 PROXY IPv4", append(v2(1, 0x11, inet4("203.0.113.7", 4242)), "rest"...), "203.0.113.7:4242", 28, false},
		{"v2 PROXY IPv6", v2(1, 0x21, inet6("2001:db8::7", 4242)), "[2001:db8::7]:4242", 52, false},
		{"v2 PROXY IPv4-mapped", v2(1, 0x21, inet6("::ffff:203.0.113.7", 4242)), "203.0.113.7:4242", 52, false},
		{"v2 with a TLV", v2(1, 0x11, tlv), "203.0.113.7:4242", 16 + len(tlv), false},
		{"v2 LOCAL", v2(0, 0x00, nil), "", 16, false},
		{"v2 LOCAL with addresses", v2(0, 0x11, inet4("203.0.113.7", 4242)), "", 28, false},
		{"v2 UNSPEC", v2(1, 0x00, nil), "", 16, false},
		{"v2 UNIX", v2(1, 0x31, make([]byte, 216)), "", 232, false},
		{"v2 UDP", v2(1, 0x12, inet4("203.0.113.7", 4242)), "", 0, true},
		{"v2 addresses cut short", v2(1, 0x21, inet4("203.0.113.7", 4242)), "", 0, true},
		{"v2 version 3", append(append([]byte{}, sigV2...), 0x31, 0x11, 0, 0), "", 0, true},
		{"v2 command 2", append(append([]byte{}, sigV2...), 0x22, 0x11, 0, 0), "", 0, true},
		{"v2 too long", append(append([]byte{}, sigV2...), 0x21, 0x11, 0xff, 0xff), "", 0, true},
		{"TLS", []byte{0x16, 3, 1, 0, 0xc8}, "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, size, err := parse(tt.in)
			if tt.err {
				if err == nil || errors.Is(err, errShort) {
					t.Fatalf("parse = %v, %d, %v; want an error", h, size, err)
				}
				return
			}
			if err != nil || size != tt.size {
				t.Fatalf("parse = %v, %d, %v; want size %d", h, size, err, tt.size)
			}
			if got := ""; h.src.IsValid() {
				got = h.src.String()
				if got != tt.src {
					t.Fatalf("source %s, want %s", got, tt.src)
				}
			} else if tt.src != "" {
				t.Fatalf("no source, want %s", tt.src)
			}
			for i := 1; i < size; i++ { // every cut of a header asks for more
				if _, _, err := parse(tt.in[:i]); !errors.Is(err, errShort) {
					t.Fatalf("the first %d bytes: %v, want errShort", i, err)
				}
			}
		})
	}
}
