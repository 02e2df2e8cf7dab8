package bgp_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestGracefulRestart: a router that announced graceful restart and is killed keeps its routes
// (stale) past its session: until Config.RestartTime (4 s here, shorter than its own restart
// time) when it stays away; until it sends End-of-RIB without them when it comes back.
func TestGracefulRestart(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		local   string
		restart time.Duration
		back    bool
	}{{"127.0.0.8", 4 * time.Second, false}, {"127.0.0.10", 10 * time.Minute, true}} {
		s, port := testenv.StartSpeaker(t, bgp.Config{RestartTime: c.restart}, nil, c.local+"/32")
		g := testenv.StartGoBGPDGraceful(t, c.local, 64600, port, testenv.SpeakerAS, 60*time.Second)
		testutil.Eventually(t, "gobgpd's session", established(s, c.local))
		g.CLI("global", "rib", "add", "198.51.100.0/24", "aspath", "64601", "nexthop", c.local)
		routeIs(t, s, c.local, "198.51.100.7", []uint32{64600, 64601})
		g.Stop()
		testutil.Eventually(t, "the session to end", func() bool { st, _ := peer(s, c.local); return st.State != "established" })
		if r, ok := s.Lookup(netip.MustParseAddr(c.local), netip.MustParseAddr("198.51.100.7")); !ok || r.Origin() != 64601 {
			t.Fatalf("%s: the stale route is gone at once: %v %v", c.local, r, ok)
		}
		if c.back {
			testenv.StartGoBGPDGraceful(t, c.local, 64600, port, testenv.SpeakerAS, 60*time.Second)
			testutil.Eventually(t, "gobgpd's session again", established(s, c.local))
		}
		routeIs(t, s, c.local, "198.51.100.7", nil)
	}
}
