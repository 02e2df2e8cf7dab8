package netctx_test

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
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

// FuzzClean: whatever the bytes, Clean gives valid UTF-8 without control nor bidirectional
// formatting characters nor spaces at its ends, of at most max bytes; it changes nothing of
// a clean name, so that cleaning twice is cleaning once.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"ge-0/0/1", "edge\xff\xfe-1\r\nState: resolved", "ge-0/0/2\u202egnp.exe\x00\x00",
		"\xc2\x85to\u2066 core\xc3", " padded ", strings.Repeat("é", 200), "\u200f\u061c", "ASCII\x7fDEL"} {
		f.Add(s, uint16(255))
		f.Add(s, uint16(3))
	}
	f.Fuzz(func(t *testing.T, s string, max uint16) {
		got := netctx.Clean(s, int(max))
		if why := clean(got, int(max)); why != "" {
			t.Fatalf("Clean(%q, %d) = %q: %s", s, max, got, why)
		}
		if again := netctx.Clean(got, int(max)); again != got {
			t.Fatalf("Clean(%q) = %q, not %q", got, again, got)
		}
	})
}

// FuzzPollAnswer: an agent answers each name polled (sysName, an interface's ifName, ifAlias
// and ifHighSpeed) with the same bytes, after a datagram of other bytes when there are (which
// may fail the poll: gosnmp takes a datagram it cannot read for the answer); the poll never
// panics nor hangs, and the names it gives are clean and bounded.
func FuzzPollAnswer(f *testing.F) {
	for _, v := range testenv.SNMPHostileValues() {
		if b, ok := v.([]byte); ok {
			f.Add(b, uint32(1), []byte{0x30, 0x82, 0xff, 0xff, 0x02, 0x01, 0x01})
		}
	}
	f.Add([]byte("plain"), uint32(4294967295), []byte{})
	agent := testenv.StartSNMPAgent(f, "127.0.0.1", "public", nil, false)
	target := netctx.Target{Address: netip.MustParseAddr("127.0.0.1"), Port: uint16(agent.Port), Version: "2c", Community: "public"}
	f.Fuzz(func(t *testing.T, value []byte, index uint32, before []byte) {
		value, before = value[:min(len(value), 30_000)], before[:min(len(before), 30_000)]
		i := strconv.FormatUint(uint64(index), 10)
		agent.Set(map[string]any{testenv.OIDSysName: value, testenv.OIDIfName + i: value,
			testenv.OIDIfAlias + i: value, testenv.OIDIfHighSpeed + i: value}, before)
		// A datagram gosnmp takes for an answer of another request has it wait for the
		// right one until its timeout (2 s): the deadline keeps the fuzzing fast.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		d, err := netctx.Poll(ctx, target)
		if err != nil && len(before) == 0 {
			t.Fatalf("poll: %v", err)
		}
		if why := clean(d.Name, netctx.MaxLabelLength); why != "" {
			t.Fatalf("sysName %q: %s", d.Name, why)
		}
		for _, itf := range d.Interfaces {
			if why := clean(itf.Name, netctx.MaxLabelLength) + clean(itf.Alias, netctx.MaxAliasLength); why != "" {
				t.Fatalf("interface %+v: %s", itf, why)
			}
		}
	})
}
