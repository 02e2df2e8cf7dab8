package inlet

import (
	"context"

	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// contextStore is a records.Store that gives each record its context (package netctx) as it
// stores it: every batch the service stores, from the ingest function, the flow collectors,
// the capture probe and the demo generator, goes through its Ingest, so each is resolved once,
// where it is stored. A record keeps what was known when it arrived: a zone changed later
// changes the records that arrive after, never those before.
type contextStore struct {
	records.Store
	resolver *netctx.Resolver
}

// Ingest resolves the context of recs, in place, and stores them.
func (s contextStore) Ingest(ctx context.Context, recs []records.Record) error {
	resolve(s.resolver, recs)
	return s.Store.Ingest(ctx, recs)
}

// resolve sets the context of each record of recs: per side its zone ("" outside every zone),
// autonomous system and country; the exporter's and its interfaces' names; and the application
// the Resolver names (the operator's most specific rule, the built-in name by port, unknown;
// never the server name, which whoever sends the packets chooses) unless the record named
// another than its port's built-in one (an ingest record's "application", the demo's): that
// one it keeps. Every name the Resolver answers was made clean and bounded where it entered
// (a poll, a GeoIP file, an administrator's call), so that no context value can fail the
// batch it joins.
func resolve(r *netctx.Resolver, recs []records.Record) {
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
