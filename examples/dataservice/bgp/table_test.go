package bgp

import (
	"math/rand/v2"
	"net/netip"
	"runtime"
	"testing"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// fullTable fills a speaker's table of router with n IPv4 routes (/24s, and a /16 every 256)
// and one attribute set every 8 routes, as a full table's ~150k distinct sets, without
// sessions, and returns addresses the routes cover.
func fullTable(s *Speaker, router netip.Addr, n int) []netip.Addr {
	rng := rand.New(rand.NewPCG(1, 2))
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.routerOf(router)
	var attrs []gobgp.PathAttributeInterface
	addrs := make([]netip.Addr, 0, 4096)
	for i := range n {
		if i%8 == 0 {
			path := make([]uint32, 2+rng.IntN(4))
			for j := range path {
				path[j] = 64512 + rng.Uint32N(1000)
			}
			attrs = []gobgp.PathAttributeInterface{
				gobgp.NewPathAttributeAsPath([]gobgp.AsPathParamInterface{gobgp.NewAs4PathParam(gobgp.BGP_ASPATH_ATTR_TYPE_SEQ, path)}),
				gobgp.NewPathAttributeCommunities([]uint32{path[0]<<16 | uint32(i/8%1000), 65000<<16 | 1}),
			}
		}
		a := netip.AddrFrom4([4]byte{byte(1 + i>>16), byte(i >> 8), byte(i), 0})
		bits := 24
		if i%256 == 255 {
			bits = 16
		}
		s.apply(r, netip.PrefixFrom(a, bits), false, attrs)
		if i%(n/4096+1) == 0 {
			addrs = append(addrs, a.Next())
		}
	}
	return addrs
}

// TestTableMemory: a full table of 1.2M routes in the speaker's own table, measured as the
// live heap it adds.
func TestTableMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a full table")
	}
	s, err := New(Config{AS: 64500, Peers: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := liveHeap()
	router := netip.MustParseAddr("10.0.0.1")
	fullTable(s, router, 1_200_000)
	mb := float64(liveHeap()-before) / (1 << 20)
	r := s.routers[router]
	c2, c3 := r.v4.dir.chunks()
	t.Logf("a full table of 1.2M routes: %.0f MB of live heap (%d attribute sets; trie %.0f MB, IPv4 strides %.1f MB, %d and %d chunks)",
		mb, len(s.attrs.index), float64(r.v4.bytes())/(1<<20), float64(r.v4.dir.bytes())/(1<<20), c2, c3)
	runtime.KeepAlive(s)
	if mb > 300 {
		t.Errorf("the table takes %.0f MB, want at most 300", mb)
	}
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
