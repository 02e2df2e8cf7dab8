package demo_test

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/demo"
)

// TestRoutes checks the demo's table against its GeoIP networks: one route per network, its
// origin the network's AS, tagged as learned from transit or a peer, the neighbour first.
func TestRoutes(t *testing.T) {
	t.Parallel()
	routes := demo.Routes()
	nets := demo.Networks()
	if len(routes) != len(nets) {
		t.Fatalf("%d routes for %d networks", len(routes), len(nets))
	}
	for i, n := range nets {
		r := routes[i]
		if r.Prefix != netip.MustParsePrefix(n.CIDR) || len(r.ASPath) == 0 || r.ASPath[len(r.ASPath)-1] != n.ASN {
			t.Errorf("route %+v of %s: want its prefix and the origin AS%d", r, n.CIDR, n.ASN)
		}
		peer := len(r.ASPath) == 1
		if len(r.Communities) != 2 || peer != slices.Contains(r.Communities, "64496:200") ||
			!strings.HasSuffix(r.Communities[1], ":"+strconv.FormatUint(uint64(r.ASPath[0]), 10)) {
			t.Errorf("route of %s: communities %q (path %v)", n.CIDR, r.Communities, r.ASPath)
		}
	}
}
