package bgp_test

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// mpUpdate6 is an UPDATE of IPv6 unicast: MP_REACH_NLRI announcing reach with the AS path
// path (next hop 2001:db8::1), MP_UNREACH_NLRI withdrawing unreach (each prefix as many
// times as listed).
func mpUpdate6(path []uint32, reach, unreach []netip.Prefix) []byte {
	nlri := func(b []byte, ps []netip.Prefix) []byte {
		for _, p := range ps {
			a := p.Addr().As16()
			b = append(append(b, byte(p.Bits())), a[:(p.Bits()+7)/8]...)
		}
		return b
	}
	attr := func(b []byte, typ byte, val []byte) []byte {
		b = append(b, 0x90, typ) // optional, extended length
		b = binary.BigEndian.AppendUint16(b, uint16(len(val)))
		return append(b, val...)
	}
	var attrs []byte
	if len(unreach) > 0 {
		attrs = attr(attrs, 15, nlri([]byte{0, 2, 1}, unreach))
	}
	if len(reach) > 0 {
		seg := []byte{2, byte(len(path))}
		for _, as := range path {
			seg = binary.BigEndian.AppendUint32(seg, as)
		}
		attrs = append(attrs, 0x40, 1, 1, 0)
		attrs = append(append(attrs, 0x40, 2, byte(len(seg))), seg...)
		nh := netip.MustParseAddr("2001:db8::1").As16()
		attrs = attr(attrs, 14, nlri(append(append([]byte{0, 2, 1, 16}, nh[:]...), 0), reach))
	}
	body := binary.BigEndian.AppendUint16([]byte{0, 0}, uint16(len(attrs)))
	return append(body, attrs...)
}

// TestWithdrawAbsentDefault6: an UPDATE that withdraws ::/0, which the router never announced,
// 4,066 times (1 byte each in MP_UNREACH_NLRI: a whole message of them) changes nothing, and
// costs no write of the IPv6 jump table; an announcement of ::/0 writes each /16 block's entry
// once, and a message of 4,066 withdrawals of it writes them once more. The router's routes
// answer throughout.
func TestWithdrawAbsentDefault6(t *testing.T) {
	t.Parallel()
	const local, as = "127.0.0.24", 64824
	s, port := testenv.StartSpeaker(t, bgp.Config{}, nil, local+"/32")
	p := dialRaw(t, local, port, as)
	testutil.Eventually(t, "the session", established(s, local))
	router := netip.MustParseAddr(local)
	p.write(2, mpUpdate6([]uint32{as}, []netip.Prefix{netip.MustParsePrefix("2001:db8:100::/48")}, nil))
	routeIs(t, s, local, "2001:db8:100::9", []uint32{as})

	def := netip.MustParsePrefix("::/0")
	const n = 4096 - 19 - 4 - 4 - 3
	withdrawals := mpUpdate6(nil, nil, slices.Repeat([]netip.Prefix{def}, n))
	if len(withdrawals)+19 != 4096 {
		t.Fatalf("an UPDATE of %d bytes", len(withdrawals)+19)
	}
	writes := func(what string, want int, msg []byte, routes uint64) {
		t.Helper()
		before, updates := s.JumpWrites(router), s.Updates()
		p.write(2, msg)
		testutil.Eventually(t, what, func() bool { return s.Updates() >= updates+routes })
		if got := s.JumpWrites(router) - before; got != want {
			t.Errorf("%s: %d entries of the jump table written, want %d", what, got, want)
		}
	}
	writes("4,066 withdrawals of ::/0, which is not there", 0, withdrawals, n)
	routeIs(t, s, local, "2001:db8:100::9", []uint32{as})
	routeIs(t, s, local, "2001:db9::1", nil)
	writes("the announcement of ::/0", 1<<16, mpUpdate6([]uint32{as, 1}, []netip.Prefix{def}, nil), 1)
	routeIs(t, s, local, "2001:db9::1", []uint32{as, 1})
	writes("the same announcement again", 0, mpUpdate6([]uint32{as, 1}, []netip.Prefix{def}, nil), 1)
	writes("4,066 withdrawals of ::/0, which is there", 1<<16, withdrawals, n)
	routeIs(t, s, local, "2001:db9::1", nil)
	routeIs(t, s, local, "2001:db8:100::9", []uint32{as})
	if st, _ := peer(s, local); st.State != "established" || st.Routes != 1 {
		t.Errorf("status %+v, want established with 1 route", st)
	}
}
