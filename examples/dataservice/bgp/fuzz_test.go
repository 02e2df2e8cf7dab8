package bgp

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"net"
	"net/netip"
	"slices"
	"testing"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// FuzzUpdate feeds UPDATE messages (their body) to what the speaker does with a router's
// routes once GoBGP parsed them: the attribute sets' encoding (attrKey, routeOf), the table's
// insertions and withdrawals and the lookups. Nothing may panic, a route learned must answer
// its own AS path, and withdrawing every route must leave the table and the sets empty, and
// nothing charged to the router.
func FuzzUpdate(f *testing.F) {
	seed := func(path []uint32, comms []uint32, prefixes ...string) []byte {
		attrs := []byte{0x40, 1, 1, 0, 0x40, 2, byte(2 + 4*len(path)), 2, byte(len(path))}
		for _, as := range path {
			attrs = binary.BigEndian.AppendUint32(attrs, as)
		}
		attrs = append(attrs, 0x40, 3, 4, 192, 0, 2, 1, 0xc0, 8, byte(4*len(comms)))
		for _, c := range comms {
			attrs = binary.BigEndian.AppendUint32(attrs, c)
		}
		body := binary.BigEndian.AppendUint16([]byte{0, 0}, uint16(len(attrs)))
		body = append(body, attrs...)
		for _, s := range prefixes {
			p := netip.MustParsePrefix(s)
			a := p.Addr().As4()
			body = append(append(body, byte(p.Bits())), a[:(p.Bits()+7)/8]...)
		}
		return body
	}
	f.Add(seed([]uint32{64500, 64501}, []uint32{64500<<16 | 1}, "198.51.100.0/24", "198.51.100.128/25", "0.0.0.0/0"))
	f.Add(seed(nil, nil, "10.0.0.0/8"))
	f.Add(seed([]uint32{4200000000}, []uint32{0xffff029a}, "203.0.113.9/32"))
	f.Fuzz(func(t *testing.T, body []byte) {
		msg := append(binary.BigEndian.AppendUint16(slices.Repeat([]byte{0xff}, 16), uint16(19+len(body))), 2)
		m, err := gobgp.ParseBGPMessage(append(msg, body...))
		if err != nil || len(body) > 4096 {
			return
		}
		u, ok := m.Body.(*gobgp.BGPUpdate)
		if !ok {
			return
		}
		s, err := New(Config{AS: 64500, Peers: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := s.routerOf(netip.MustParseAddr("10.0.0.1"))
		var learned []netip.Prefix
		for _, n := range u.NLRI {
			if p, ok := n.NLRI.(*gobgp.IPAddrPrefix); ok && p.Prefix.IsValid() {
				s.apply(r, p.Prefix, false, u.PathAttributes)
				learned = append(learned, p.Prefix)
			}
		}
		want := routeOf(attrKey(nil, u.PathAttributes))
		for _, p := range learned {
			got, ok := s.Lookup(r.addr, p.Masked().Addr().Unmap())
			if !ok || !slices.Equal(got.ASPath, want.ASPath) || !slices.Equal(got.Communities, want.Communities) {
				t.Fatalf("lookup of %s: %v %v, want %v", p, got, ok, want)
			}
		}
		for _, p := range learned {
			s.apply(r, p, true, nil)
		}
		if r.routes() != 0 || len(s.attrs.index) != 0 || r.attrBytes != 0 {
			t.Fatalf("after withdrawing every route: %d routes, %d attribute sets of %d bytes", r.routes(), len(s.attrs.index), r.attrBytes)
		}
	})
}

// FuzzSession feeds a stream of messages, as a router would send them once Established, to the
// session's reader (session.established: the header's checks, UPDATE decoding and validation
// by GoBGP's wire library, RFC 7606 handling, the table). Nothing may panic or read past the
// 4,096-byte message; the stream ends the session, and its end leaves no route nor attribute set.
func FuzzSession(f *testing.F) {
	msg := func(typ byte, body []byte) []byte {
		m := binary.BigEndian.AppendUint16(slices.Repeat([]byte{0xff}, 16), uint16(19+len(body)))
		return append(append(m, typ), body...)
	}
	upd := []byte{0, 0, 0, 27, 0x40, 1, 1, 0, 0x40, 2, 6, 2, 1, 0, 0, 0xfb, 0xf4, 0x40, 3, 4, 192, 0, 2, 1, 0xc0, 8, 4, 0xfb, 0xf4, 0, 1, 24, 198, 51, 100}
	withdraw := []byte{0, 4, 24, 198, 51, 100, 0, 0}
	f.Add(slices.Concat(msg(4, nil), msg(2, upd), msg(5, []byte{0, 1, 0, 1}), msg(2, withdraw)))
	f.Add(slices.Concat(msg(2, upd), msg(2, []byte{0, 0, 0, 0})))                                // End-of-RIB
	f.Add(slices.Concat(msg(2, upd), msg(2, bytes.Replace(upd, []byte{2, 1}, []byte{2, 9}, 1)))) // treat as withdraw
	f.Add(msg(2, append(slices.Clone(upd), make([]byte, 4100)...)))                              // oversized
	f.Add(msg(9, nil))
	f.Fuzz(func(t *testing.T, stream []byte) {
		s, err := New(Config{AS: 64500, Peers: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, other := net.Pipe()
		defer c.Close()
		defer other.Close()
		ss := &session{s: s, conn: c, addr: netip.MustParseAddr("10.0.0.1"), in: bufio.NewReader(bytes.NewReader(stream)),
			as: 64501, families: map[gobgp.Family]gobgp.BGPAddPathMode{gobgp.RF_IPv4_UC: 0, gobgp.RF_IPv6_UC: 0},
			opt: &gobgp.MarshallingOption{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
		if !s.register(ss) {
			t.Fatal("not registered")
		}
		s.routerOf(ss.addr).state = gobgp.BGP_FSM_ESTABLISHED
		e := ss.established()
		if e == nil {
			t.Fatal("the stream's end did not end the session")
		}
		s.down(ss, e)
		if r := s.routers[ss.addr]; r.routes() != 0 || len(s.attrs.index) != 0 || r.attrBytes != 0 {
			t.Fatalf("after the session: %d routes, %d attribute sets of %d bytes", r.routes(), len(s.attrs.index), r.attrBytes)
		}
	})
}
