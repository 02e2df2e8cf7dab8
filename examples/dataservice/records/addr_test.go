package records_test

import (
	"net/netip"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

func TestHalves(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr   string
		hi, lo uint64
	}{
		{"0.0.0.0", 0, 0x0000ffff00000000},
		{"10.0.0.5", 0, 0x0000ffff0a000005},
		{"255.255.255.255", 0, 0x0000ffffffffffff},
		{"::", 0, 0},
		{"::1", 0, 1},
		{"2001:db8::1", 0x20010db800000000, 1},
		{"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ^uint64(0), ^uint64(0)},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			a := netip.MustParseAddr(tt.addr)
			hi, lo := records.Halves(a)
			if hi != tt.hi || lo != tt.lo {
				t.Errorf("Halves(%s) = %#x, %#x; want %#x, %#x", a, hi, lo, tt.hi, tt.lo)
			}
			if back := records.AddrFromHalves(hi, lo); back != a {
				t.Errorf("AddrFromHalves(Halves(%s)) = %s", a, back)
			}
		})
	}
}

func TestHalvesSortLikeAddresses(t *testing.T) {
	t.Parallel()
	addrs := []string{"::1", "1.2.3.4", "10.0.0.5", "10.0.1.0", "2001:db8::1", "fd00::1"}
	for i := 1; i < len(addrs); i++ {
		ahi, alo := records.Halves(netip.MustParseAddr(addrs[i-1]))
		bhi, blo := records.Halves(netip.MustParseAddr(addrs[i]))
		if ahi > bhi || (ahi == bhi && alo >= blo) {
			t.Errorf("halves of %s do not sort before those of %s", addrs[i-1], addrs[i])
		}
	}
}
