package inlet

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// BenchmarkResolve is the enrichment of a batch of 1,024 records (what contextStore.Ingest
// adds to storing them) with 1,000 zones of 10 networks and 100 applications: each record's
// zones, application and the copy of its context into the record; routes=one adds each side's
// route, always the same one (what the enrichment costs apart from the lookup), routes=table
// from a table of 65,536 /24s (flat24: one map lookup, standing for the speaker's).
func BenchmarkResolve(b *testing.B) {
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
		p := uint16(20000 + i)
		apps = append(apps, netctx.Application{Name: fmt.Sprintf("app%d", i),
			Rules: []netctx.Rule{{Protocol: 6, PortLow: p, PortHigh: p}}})
	}
	r := netctx.NewResolver(netctx.WithBuiltin(records.Application))
	if err := r.Set(zones, apps); err != nil {
		b.Fatal(err)
	}
	recs := make([]records.Record, 1024)
	for i := range recs {
		recs[i] = records.Record{Protocol: 6, Application: "https",
			Client: records.Endpoint{IP: netip.AddrFrom4([4]byte{10, byte(i), byte(i * 7), 1}), Port: 50000},
			Server: records.Endpoint{IP: netip.AddrFrom4([4]byte{10, byte(i * 3), byte(i), 2}), Port: uint16(20000 + i%200)}}
	}
	routes := flat24{}
	for i := range 256 {
		for j := range 256 {
			routes[netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i), byte(j), 0}), 24)] = &bgp.Route{
				ASPath: []uint32{64500, uint32(64600 + i)}, Communities: []string{"65000:100", "65000:" + fmt.Sprint(j)}}
		}
	}
	for _, bm := range []struct {
		name   string
		routes Routes
	}{{"routes=none", nil}, {"routes=one", one{routes[netip.MustParsePrefix("10.1.2.0/24")]}}, {"routes=table", routes}} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resolve(r, bm.routes, recs)
			}
		})
	}
}

// one is a table whose every address is covered by one route.
type one struct{ r *bgp.Route }

func (o one) Lookup(_, _ netip.Addr) (*bgp.Route, bool) { return o.r, true }

// flat24 is a table of /24 routes: one map lookup an address.
type flat24 map[netip.Prefix]*bgp.Route

func (t flat24) Lookup(_, a netip.Addr) (*bgp.Route, bool) {
	p, _ := a.Prefix(24)
	r, ok := t[p]
	return r, ok
}
