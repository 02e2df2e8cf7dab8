package inlet

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// BenchmarkResolve is the enrichment of a batch of 1,024 records (what contextStore.Ingest
// adds to storing them) with 1,000 zones of 10 networks and 100 applications: each record's
// zones, application and the copy of its context into the record.
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
	b.ReportAllocs()
	for b.Loop() {
		resolve(r, recs)
	}
}
