package inlet

import (
	"context"
	"net/netip"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Routes is the table of routes the service learned over BGP (*bgp.Speaker): Lookup returns the
// route covering addr in the table of router (the router whose address is the record's
// exporter, else any), shared and never changed, and false when none covers it.
type Routes interface {
	Lookup(router, addr netip.Addr) (*bgp.Route, bool)
}

// contextStore is a records.Store that gives each record its context (package netctx) as it
// stores it: every batch the service stores, from the ingest function, the flow collectors,
// the capture probe and the demo generator, goes through its Ingest, so each is resolved once,
// where it is stored. A record keeps what was known when it arrived: a zone changed later
// changes the records that arrive after, never those before.
type contextStore struct {
	records.Store
	resolver *netctx.Resolver
	routes   Routes // nil: no BGP
}

// Ingest resolves the context of recs, in place, and stores them.
func (s contextStore) Ingest(ctx context.Context, recs []records.Record) error {
	resolve(s.resolver, s.routes, recs)
	return s.Store.Ingest(ctx, recs)
}

// resolve sets the context of each record of recs: per side its zone ("" outside every zone),
// autonomous system and country; the exporter's and its interfaces' names; and the application
// the Resolver names (the operator's most specific rule, the built-in name by port, unknown;
// never the server name, which whoever sends the packets chooses) unless the record named
// another than its port's built-in one (an ingest record's "application", the demo's): that
// one it keeps. Every name the Resolver answers was made clean and bounded where it entered
// (a poll, a GeoIP file, an administrator's call), so that no context value can fail the
// batch it joins. With routes, each side also gets the AS path and communities of the route
// covering its address in the table of the record's exporter, and its AS number from the
// route's origin (route).
func resolve(r *netctx.Resolver, routes Routes, recs []records.Record) {
	var f netctx.Flow
	var c netctx.Context
	for i := range recs {
		rec := &recs[i]
		f = netctx.Flow{Client: rec.Client.IP, Server: rec.Server.IP, ClientPort: rec.Client.Port,
			ServerPort: rec.Server.Port, Protocol: rec.Protocol, Exporter: rec.Exporter, InIf: rec.InIf,
			OutIf: rec.OutIf}
		r.Resolve(&f, &c)
		if rec.Application == records.Application(rec.Protocol, rec.Server.Port) {
			rec.Application = c.Application
		}
		rec.Client.Place, rec.Server.Place = place(c.Client), place(c.Server)
		if routes != nil {
			route(r, routes, rec.Exporter, rec.Client.IP, &rec.Client.Place)
			route(r, routes, rec.Exporter, rec.Server.IP, &rec.Server.Place)
		}
		rec.ExporterName = c.Exporter
		rec.InIfName, rec.InIfAlias = c.InIf.Name, c.InIf.Alias
		rec.OutIfName, rec.OutIfAlias = c.OutIf.Name, c.OutIf.Alias
	}
}

// place is what a record keeps of where an address is: its zone is "" for netctx.Other, as
// the rows of earlier versions hold.
func place(p netctx.Place) records.Place {
	if p.Zone == netctx.Other {
		p.Zone = ""
	}
	return records.Place{Zone: p.Zone, ASN: p.ASN.Number, ASName: p.ASN.Name, Country: p.Country}
}

// route sets p's route: the AS path and communities of the route covering a in router's
// table (the first records.MaxASPath and records.MaxCommunities, shared with the route, which
// is never changed), and the AS from the route's origin rather than the GeoIP file's, named
// as the file names that number ("" when it does not). A route of the router's own AS (no
// path) leaves the file's AS.
func route(r *netctx.Resolver, routes Routes, router, a netip.Addr, p *records.Place) {
	rt, ok := routes.Lookup(router, a)
	if !ok {
		return
	}
	n, m := min(len(rt.ASPath), records.MaxASPath), min(len(rt.Communities), records.MaxCommunities)
	p.ASPath, p.Communities = rt.ASPath[:n:n], rt.Communities[:m:m]
	if o := rt.Origin(); o != 0 && o != p.ASN {
		p.ASN, p.ASName = o, r.ASName(o)
	}
}
