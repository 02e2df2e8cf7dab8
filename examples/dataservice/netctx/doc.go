// Package netctx gives a traffic record its context: the zones of its addresses (the
// operator's named networks), its application by the operator's rules, the autonomous system
// and country of its addresses (MaxMind DB files), and the names of its exporter and
// interfaces (SNMP, or static names).
//
// A Resolver answers all of them for one record, without allocating, and is safe for
// concurrent use: each source is an immutable table swapped atomically when it changes
// (SetZones, SetApplications, a GeoIP file replaced on disk, an SNMP poll), so that a lookup
// sees one table or the next, never a mix.
//
//	r := netctx.NewResolver(netctx.WithBuiltin(records.Application))
//	if err := r.SetZones([]netctx.Zone{{Name: "HQ", Networks: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}}); err != nil { ... }
//	var c netctx.Context
//	r.Resolve(&netctx.Flow{Client: client, Server: server, Protocol: 6, ServerPort: 443}, &c)
//	// c.Client.Zone == "HQ", c.Application == "https"
package netctx
