package netctx

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
)

var (
	diffZones    = []string{"", "A", "A/B", "A/B/C", "D", "AB"}
	diffFlowZone = []string{Other, "A", "A/B", "A/B/C", "A/B/C/E", "D", "AB", "A/BC"}
	diffNets     = []string{"0.0.0.0/0", "10.0.0.0/8", "10.1.0.0/16", "10.1.2.0/24", "10.1.2.3/32", "10.1.2.0/25",
		"192.0.2.0/24", "::/0", "2001:db8::/32", "2001:db8::/64", "2001:db8::1/128"}
	diffAddrs = []string{"10.1.2.3", "10.1.2.200", "10.1.9.9", "10.200.0.1", "192.0.2.7", "203.0.113.1",
		"2001:db8::1", "2001:db8::2", "2001:db8:1::1", "2001:db9::1", "::ffff:10.1.2.3"}
	diffProtos = []uint8{0, 6, 17, 1}
)

// diffApplications makes applications of rules read from b (7 bytes a rule), each rule its own
// application, dropping those whose conditions repeat an earlier one's.
func diffApplications(t testing.TB, b []byte) *Applications {
	var apps []Application
	seen := map[string]bool{}
	for len(b) >= 7 && len(apps) < 300 {
		r := Rule{Protocol: diffProtos[b[0]%4], ServerZone: diffZones[b[3]%6], ClientZone: diffZones[b[4]%6]}
		if b[1]%3 != 0 && hasPorts(r.Protocol) {
			r.PortLow = uint16(b[1])<<2 | 1
			r.PortHigh = r.PortLow + uint16(b[2])%64*uint16(b[2]%4)
			if b[2] == 255 {
				r.PortHigh = 65535
			}
		}
		for k := range int(b[5] % 3) {
			r.Networks = append(r.Networks, netip.MustParsePrefix(diffNets[(int(b[6])+k*5)%len(diffNets)]))
		}
		b = b[7:]
		c := compiled{Rule: r}
		if seen[c.conditions()] {
			continue
		}
		seen[c.conditions()] = true
		apps = append(apps, Application{Name: fmt.Sprintf("a%d", len(apps)), Rules: []Rule{r}})
	}
	var zones []Zone
	for _, z := range diffZones[1:] {
		zones = append(zones, Zone{Name: z})
	}
	zs, err := NewZones(zones)
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewApplications(apps, zs)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// diffCheck compares Match (indexed) with scan (every rule) for one record.
func diffCheck(t testing.TB, a *Applications, f *Flow, sz, cz string) {
	if got, want := a.Match(f, sz, cz), a.scan(f, sz, cz); got != want {
		t.Fatalf("record %+v zones %q %q: Match %q, scanning the rules %q", f, sz, cz, got, want)
	}
}

// TestMatchIndexedAsScan compares the indexed Match with a scan of every rule over random rules
// and records: most specific rule wins, the first given among equals.
func TestMatchIndexedAsScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		b := make([]byte, 7*300)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		a := diffApplications(t, b)
		for range 5000 {
			f := Flow{Server: netip.MustParseAddr(diffAddrs[rng.IntN(len(diffAddrs))]), Protocol: diffProtos[rng.IntN(4)],
				ServerPort: uint16(rng.IntN(1100))}
			if rng.IntN(20) == 0 {
				f.ServerPort = uint16(65535 - rng.IntN(2))
			}
			diffCheck(t, a, &f, diffFlowZone[rng.IntN(len(diffFlowZone))], diffFlowZone[rng.IntN(len(diffFlowZone))])
		}
	}
}

// FuzzMatchIndexed is TestMatchIndexedAsScan's comparison on rules and a record from the
// fuzzer.
func FuzzMatchIndexed(f *testing.F) {
	f.Add([]byte{1, 1, 0, 0, 0, 0, 0, 1, 1, 9, 1, 0, 0, 0, 0, 0, 0, 1, 2, 1, 3}, uint8(1), uint8(1), uint16(5), uint8(0), uint8(0))
	f.Add([]byte{0, 0, 0, 0, 0, 2, 3, 0, 0, 0, 0, 0, 1, 4, 2, 5, 7, 3, 4, 2, 2}, uint8(0), uint8(3), uint16(0), uint8(2), uint8(4))
	f.Fuzz(func(t *testing.T, rules []byte, addr, proto uint8, port uint16, sz, cz uint8) {
		a := diffApplications(t, rules)
		fl := Flow{Server: netip.MustParseAddr(diffAddrs[int(addr)%len(diffAddrs)]), Protocol: diffProtos[proto%4], ServerPort: port}
		diffCheck(t, a, &fl, diffFlowZone[int(sz)%len(diffFlowZone)], diffFlowZone[int(cz)%len(diffFlowZone)])
	})
}
