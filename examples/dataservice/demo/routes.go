package demo

import (
	"net/netip"
	"strconv"
)

// The ASes of the demo's routes besides Networks' (RFC 5398's documentation numbers): the
// company's own, its two transit providers, and the carriers between them and farther
// networks.
const (
	companyAS   = 64496
	transitOne  = 64510
	transitTwo  = 64511
	carrierEU   = 64507
	carrierAPAC = 64508
	carrierOC   = 64509
)

// Route is a BGP route of the demo's table: what the company's border routers learned for
// one of Networks.
type Route struct {
	Prefix netip.Prefix
	// ASPath is the path as the router got it, its neighbour first and the origin last: the
	// network's AS, so that the route's origin and the GeoIP files agree.
	ASPath []uint32
	// Communities are the company's tags, as its routers set them on import: 64496:100 for a
	// route learned from transit, 64496:200 from a peer at the exchange, and the large
	// community 64496:1:AS (transit) or 64496:2:AS (peer) naming the neighbour.
	Communities []string
}

// Routes returns the demo's table, one route per network of Networks: the CDN and the public
// DNS peer at the exchange; the others come through transit, the farther ones over a carrier,
// and Copper Hill prepends its AS once. The company's own (private) addresses have none: a
// record's sides there have no AS path, as with a real table.
func Routes() []Route {
	paths := map[string][]uint32{
		"192.0.2.0/25":      {transitOne, 64502},
		"192.0.2.128/25":    {transitTwo, carrierEU, 64504},
		"198.51.100.0/27":   {64501},
		"198.51.100.32/27":  {64503},
		"198.51.100.64/26":  {transitOne, carrierAPAC, 64506},
		"198.51.100.128/26": {transitTwo, carrierOC, 65538, 65538},
		"203.0.113.0/27":    {transitOne, 64500},
		"203.0.113.32/27":   {transitTwo, 65536},
		"203.0.113.64/27":   {transitOne, 64505},
		"203.0.113.128/26":  {transitTwo, 65537},
		"2001:db8:80::/48":  {transitOne, 64500},
	}
	var out []Route
	for _, n := range Networks() {
		path := paths[n.CIDR]
		us, neighbour := strconv.Itoa(companyAS), strconv.FormatUint(uint64(path[0]), 10)
		tags := []string{us + ":100", us + ":1:" + neighbour}
		if len(path) == 1 { // a peer's own route
			tags = []string{us + ":200", us + ":2:" + neighbour}
		}
		out = append(out, Route{Prefix: netip.MustParsePrefix(n.CIDR), ASPath: path, Communities: tags})
	}
	return out
}
