package demo_test

import (
	"net/netip"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/demo"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestContext checks that the demo's zones and applications are ones set-zone and
// set-application accept, and name the demo's traffic: every client in a zone, the
// applications of the business servers by their rules.
func TestContext(t *testing.T) {
	t.Parallel()
	var zones []netctx.Zone
	for _, z := range demo.Zones() {
		if err := netctx.CheckName(z.Name); err != nil {
			t.Errorf("zone %q: %v", z.Name, err)
		}
		nz := netctx.Zone{Name: z.Name}
		for _, n := range z.Networks {
			nz.Networks = append(nz.Networks, netip.MustParsePrefix(n))
		}
		zones = append(zones, nz)
	}
	var apps []netctx.Application
	for _, a := range demo.Applications() {
		if err := netctx.CheckName(a.Name); err != nil {
			t.Errorf("application %q: %v", a.Name, err)
		}
		na := netctx.Application{Name: a.Name}
		for _, r := range a.Rules {
			p, err := netctx.ParseProtocol(r.Protocol)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi, err := netctx.ParsePorts(r.Ports)
			if err != nil {
				t.Fatal(err)
			}
			nr := netctx.Rule{Protocol: p, PortLow: lo, PortHigh: hi}
			for _, n := range r.Networks {
				nr.Networks = append(nr.Networks, netip.MustParsePrefix(n))
			}
			na.Rules = append(na.Rules, nr)
		}
		apps = append(apps, na)
	}
	res := netctx.NewResolver(netctx.WithBuiltin(records.Application))
	if err := res.Set(zones, apps); err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	var c netctx.Context
	for _, r := range demo.New(testNow, demo.Options{Seed: 4}).Until(testNow.Add(30 * 60e9)) {
		res.Resolve(&netctx.Flow{Client: r.Client.IP, Server: r.Server.IP, ClientPort: r.Client.Port,
			ServerPort: r.Server.Port, Protocol: r.Protocol}, &c)
		if c.Client.Zone == netctx.Other {
			t.Fatalf("client %s is in no zone", r.Client.IP)
		}
		named[c.Application] = true
	}
	for _, a := range demo.Applications() {
		if !named[a.Name] {
			t.Errorf("no record of %s in half an hour; applications: %v", a.Name, named)
		}
	}
}
