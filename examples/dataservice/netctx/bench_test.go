package netctx_test

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"path/filepath"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// benchResolver has 1,000 zones of 10 networks, 100 applications of 3 rules, an ASN and a
// country file of 10,000 networks each, and static names of 10 exporters.
func benchResolver(b *testing.B) (*netctx.Resolver, []netctx.Flow) {
	rng := rand.New(rand.NewPCG(1, 2))
	var zones []netctx.Zone
	for i := range 1000 {
		z := netctx.Zone{Name: fmt.Sprintf("Customers/C%d", i)}
		for j := range 10 {
			z.Networks = append(z.Networks, netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 2), byte(j<<4 | i&3), 0}), 24))
		}
		zones = append(zones, z)
	}
	var apps []netctx.Application
	for i := range 100 {
		a := netctx.Application{Name: fmt.Sprintf("app%d", i)}
		for j := range 3 {
			p := uint16(20000 + i*10 + j)
			a.Rules = append(a.Rules, netctx.Rule{Protocol: 6, PortLow: p, PortHigh: p})
		}
		apps = append(apps, a)
	}
	dir := b.TempDir()
	asns, countries := map[string]mmdbtype.Map{}, map[string]mmdbtype.Map{}
	for i := range 10000 {
		cidr := fmt.Sprintf("%d.%d.%d.0/24", 20+i%50, i/50, i%256)
		asns[cidr] = asn(uint32(64512+i%1000), fmt.Sprintf("AS-%d", i%1000))
		countries[cidr] = country([]string{"US", "FR", "DE", "JP"}[i%4])
	}
	writeMMDB(b, filepath.Join(dir, "asn.mmdb"), "GeoLite2-ASN", asns)
	writeMMDB(b, filepath.Join(dir, "country.mmdb"), "GeoLite2-Country", countries)
	a, err := netctx.OpenGeoFile(filepath.Join(dir, "asn.mmdb"), netctx.LayoutASN)
	if err != nil {
		b.Fatal(err)
	}
	c, err := netctx.OpenGeoFile(filepath.Join(dir, "country.mmdb"), netctx.LayoutCountry)
	if err != nil {
		b.Fatal(err)
	}
	names := &netctx.Names{}
	var ds []netctx.Device
	for i := range 10 {
		d := netctx.Device{Address: netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}), Name: fmt.Sprintf("r%d", i), Interfaces: map[uint32]netctx.Interface{}}
		for j := range uint32(48) {
			d.Interfaces[j] = netctx.Interface{Index: j, Name: fmt.Sprintf("ge-0/0/%d", j)}
		}
		ds = append(ds, d)
	}
	names.SetStatic(ds)
	r := netctx.NewResolver(netctx.WithBuiltin(builtin), netctx.WithGeoIP(a, c), netctx.WithNames(names))
	if err := r.Set(zones, apps); err != nil {
		b.Fatal(err)
	}
	flows := make([]netctx.Flow, 4096)
	for i := range flows {
		flows[i] = netctx.Flow{
			Client:   netip.AddrFrom4([4]byte{10, byte(rng.IntN(256)), byte(rng.IntN(256)), byte(rng.IntN(256))}),
			Server:   netip.AddrFrom4([4]byte{byte(20 + rng.IntN(50)), byte(rng.IntN(200)), byte(rng.IntN(256)), 1}),
			Protocol: 6, ServerPort: uint16(20000 + rng.IntN(2000)), ClientPort: 50000,
			Exporter: netip.AddrFrom4([4]byte{192, 0, 2, byte(rng.IntN(10))}), InIf: uint32(rng.IntN(48)), OutIf: uint32(rng.IntN(48)),
		}
	}
	return r, flows
}

// BenchmarkResolve is the cost of a record's whole context: two zones, the application, two
// ASNs, two countries, the exporter's and two interfaces' names.
func BenchmarkResolve(b *testing.B) {
	r, flows := benchResolver(b)
	resolveAll(b, r, flows)
}

// resolveAll resolves flows in turn, the benchmark's work.
func resolveAll(b *testing.B, r *netctx.Resolver, flows []netctx.Flow) {
	var c netctx.Context
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testenv.CPUTime()
	n := 0
	for i := 0; b.Loop(); i++ {
		r.Resolve(&flows[i%len(flows)], &c)
		n++
	}
	// CPU time rather than the wall clock's: on a shared machine the wall clock counts waits.
	b.ReportMetric(float64(testenv.CPUTime()-cpu)/float64(n), "cpu-ns/op")
}

// BenchmarkZoneLookup is one address's zone among 10,000 networks.
func BenchmarkZoneLookup(b *testing.B) {
	r, flows := benchResolver(b)
	z := r.Zones()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testenv.CPUTime()
	n := 0
	for i := 0; b.Loop(); i++ {
		_ = z.Lookup(flows[i%len(flows)].Client)
		n++
	}
	b.ReportMetric(float64(testenv.CPUTime()-cpu)/float64(n), "cpu-ns/op")
}

// BenchmarkOpenGeoFile is the cost of reading a GeoLite2-ASN-like file of 100,000 IPv4
// networks of 20,000 autonomous systems, flattening included: what a reload costs.
func BenchmarkOpenGeoFile(b *testing.B) {
	asns := map[string]mmdbtype.Map{}
	for i := range 100_000 {
		asns[fmt.Sprintf("%d.%d.%d.0/24", 20+i%50, (i/50)%200, i/10_000)] = asn(uint32(64512+i%20_000), fmt.Sprintf("AS-%d", i%20_000))
	}
	path := filepath.Join(b.TempDir(), "asn.mmdb")
	writeMMDB(b, path, "GeoLite2-ASN", asns)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := netctx.OpenGeoFile(path, netctx.LayoutASN); err != nil {
			b.Fatal(err)
		}
	}
}

// manyRules is 1,000 applications of 100 rules (100,000, within the limits): a quarter name 4
// networks each, a quarter overlapping TCP port ranges, a quarter a server zone and a UDP
// port, a quarter a client zone and a TCP port.
func manyRules() []netctx.Application {
	var apps []netctx.Application
	for i := range 1000 {
		a := netctx.Application{Name: fmt.Sprintf("app%d", i)}
		for j := range 100 {
			r := i*100 + j
			q := r / 4
			var rule netctx.Rule
			switch r % 4 {
			case 0:
				for k := range 4 {
					rule.Networks = append(rule.Networks, netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(30 + k), byte(q >> 8), byte(q), 0}), 24))
				}
			case 1:
				lo := uint16(1000 + q%20000)
				rule = netctx.Rule{Protocol: 6, PortLow: lo, PortHigh: lo + uint16(q/20000*1000+q%50*10)}
			case 2:
				p := uint16(100 + q/1000)
				rule = netctx.Rule{Protocol: 17, PortLow: p, PortHigh: p, ServerZone: fmt.Sprintf("Customers/C%d", q%1000)}
			case 3:
				p := uint16(30000 + q/1000)
				rule = netctx.Rule{Protocol: 6, PortLow: p, PortHigh: p, ClientZone: fmt.Sprintf("Customers/C%d", q%1000)}
			}
			a.Rules = append(a.Rules, rule)
		}
		apps = append(apps, a)
	}
	return apps
}

// BenchmarkResolveManyRules is BenchmarkResolve with the 100,000 rules of manyRules, the
// servers half in zones, half in the rules' networks.
func BenchmarkResolveManyRules(b *testing.B) {
	r, flows := benchResolver(b)
	zones := make([]netctx.Zone, 1000)
	for i := range zones {
		zones[i] = netctx.Zone{Name: fmt.Sprintf("Customers/C%d", i)}
		for j := range 10 {
			zones[i].Networks = append(zones[i].Networks, netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 2), byte(j<<4 | i&3), 0}), 24))
		}
	}
	if err := r.Set(zones, manyRules()); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range flows {
		f := &flows[i]
		if i%2 == 0 {
			f.Server = netip.AddrFrom4([4]byte{10, byte(rng.IntN(250)), byte(rng.IntN(256)), 1})
		} else {
			f.Server = netip.AddrFrom4([4]byte{byte(30 + rng.IntN(5)), byte(rng.IntN(100)), byte(rng.IntN(256)), 1})
		}
		f.Protocol = []uint8{6, 17}[rng.IntN(2)]
		f.ServerPort = uint16(100 + rng.IntN(40000))
	}
	resolveAll(b, r, flows)
}

// BenchmarkSetManyRules is the cost of setting manyRules' 100,000 rules: checking and indexing
// them, what set-application costs.
func BenchmarkSetManyRules(b *testing.B) {
	zones := make([]netctx.Zone, 1000)
	for i := range zones {
		zones[i] = netctx.Zone{Name: fmt.Sprintf("Customers/C%d", i)}
	}
	apps := manyRules()
	r := netctx.NewResolver()
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Set(zones, apps); err != nil {
			b.Fatal(err)
		}
	}
}
