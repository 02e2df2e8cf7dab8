// Package bgp is the data service's BGP speaker: routers peer with it (passive sessions from
// the addresses the configuration allows), the unicast routes they send enrich every record
// with the AS path and communities of the route carrying its addresses, and alerts announce
// blackhole routes and flowspec rules through it (DESIGN.md, "Routing and mitigation (BGP)").
//
// The sessions are the speaker's own (session.go: the passive side of RFC 4271's FSM), and every
// message is encoded and decoded by GoBGP's maintained wire library
// (github.com/osrg/gobgp/v4/pkg/packet/bgp: OPEN and capabilities, UPDATE with MP_REACH and
// MP_UNREACH, flowspec, communities, 4-octet AS paths, NOTIFICATION, ROUTE-REFRESH). GoBGP's
// server was the speaker until its per-session Adj-RIB-In, which cannot be turned off, took 4/5
// of a full table's memory: each UPDATE is now decoded straight into the speaker's own table
// (trie.go, attrs.go), per router and family a path-compressed trie whose node holds the index
// of the route's (AS path, communities) set, each set stored once. Figures in BENCHMARKS.md.
package bgp

import "net/netip"

// Route is what a learned route says of the addresses it covers. A Route from Lookup is shared
// and never changed: a caller reads it and does not keep its slices past the record it fills.
type Route struct {
	// ASPath is the AS path as the router sent it, the router's neighbour first and the
	// origin AS last (an AS_SET's members in their order).
	ASPath []uint32
	// Communities are the route's communities as "A:B" and its large communities as "A:B:C".
	Communities []string
}

// Origin returns the AS that originated the route (the last of its path), 0 when the path is
// empty (a route of the router's own AS).
func (r *Route) Origin() uint32 {
	if len(r.ASPath) == 0 {
		return 0
	}
	return r.ASPath[len(r.ASPath)-1]
}

// Mitigation is a route the service announces to its peers to stop a flood: a blackhole route
// (the prefix with the BLACKHOLE community 65535:666, RFC 7999) or a flowspec rule (RFC 8955)
// discarding the traffic to the prefix, of one protocol and port when they are set.
type Mitigation struct {
	// Prefix is the attacked address as a /32 or /128.
	Prefix netip.Prefix
	// Flowspec chooses a flowspec rule rather than a blackhole route.
	Flowspec bool
	// Protocol and Port narrow a flowspec rule: 0 for any.
	Protocol uint8
	Port     uint16
	// NextHop is a blackhole route's next hop, of the prefix's family: the configuration key
	// blackhole_nexthop (default 192.0.2.1 and 100::1, discard addresses routers map to a
	// null route). Unset for a flowspec rule. A withdrawal gets the Mitigation announced.
	NextHop netip.Addr
}
