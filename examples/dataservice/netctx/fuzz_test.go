package netctx_test

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/netctx"
)

// FuzzZones checks the trie against a reference: the zone of the longest prefix holding the
// address, found by scanning every network.
func FuzzZones(f *testing.F) {
	f.Add([]byte{10, 0, 0, 0, 8, 10, 1, 0, 0, 16}, []byte{10, 1, 2, 3}, false)
	f.Add([]byte{0x20, 1, 0x0d, 0xb8, 32}, []byte{0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, true)
	f.Fuzz(func(t *testing.T, nets, addr []byte, v6 bool) {
		width, step := 4, 5
		if v6 {
			width, step = 16, 17
		}
		var zones []netctx.Zone
		seen := map[netip.Prefix]bool{}
		for i := 0; i+step <= len(nets) && len(zones) < 64; i += step {
			var a netip.Addr
			if v6 {
				a = netip.AddrFrom16([16]byte(nets[i : i+16]))
			} else {
				a = netip.AddrFrom4([4]byte(nets[i : i+4]))
			}
			p := netip.PrefixFrom(a, int(nets[i+width])%(width*8+1)).Masked()
			if seen[p] {
				continue
			}
			seen[p] = true
			zones = append(zones, netctx.Zone{Name: fmt.Sprintf("z%d", len(zones)), Networks: []netip.Prefix{p}})
		}
		z, err := netctx.NewZones(zones)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, width)
		copy(buf, addr)
		var a netip.Addr
		if v6 {
			a = netip.AddrFrom16([16]byte(buf))
		} else {
			a = netip.AddrFrom4([4]byte(buf))
		}
		want, bits := netctx.Other, -1
		for _, zone := range zones {
			if p := zone.Networks[0]; p.Contains(a) && p.Bits() > bits {
				want, bits = zone.Name, p.Bits()
			}
		}
		if got := z.Lookup(a); got != want {
			t.Fatalf("Lookup(%s) = %q, want %q (zones %v)", a, got, want, zones)
		}
	})
}

// FuzzParsePorts: any text gives a valid range or an error, never a panic.
func FuzzParsePorts(f *testing.F) {
	for _, s := range []string{"443", "8000-8100", "9-1", "", "-", "65535-65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lo, hi, err := netctx.ParsePorts(s)
		if err == nil && s != "" && (lo == 0 || hi < lo) {
			t.Fatalf("ParsePorts(%q) = %d-%d", s, lo, hi)
		}
	})
}

// FuzzPublic checks Public's IPv4 shortcut against netip's checks.
func FuzzPublic(f *testing.F) {
	for _, b := range [][4]byte{{10, 0, 0, 1}, {100, 64, 0, 1}, {100, 128, 0, 1}, {172, 31, 1, 1}, {172, 32, 1, 1}, {8, 8, 8, 8}, {255, 255, 255, 255}, {0, 1, 2, 3}} {
		f.Add(b[0], b[1], b[2], b[3])
	}
	cgnat := netip.MustParsePrefix("100.64.0.0/10")
	f.Fuzz(func(t *testing.T, a, b, c, d byte) {
		ip := netip.AddrFrom4([4]byte{a, b, c, d})
		// 0.0.0.0/8 ("this network") and 240.0.0.0/4 (reserved) are never a host's address on
		// the Internet: Public refuses them too.
		want := ip.IsGlobalUnicast() && !ip.IsPrivate() && !cgnat.Contains(ip) && a != 0 && a < 240
		if got := netctx.Public(ip); got != want {
			t.Fatalf("Public(%s) = %v, want %v", ip, got, want)
		}
	})
}
