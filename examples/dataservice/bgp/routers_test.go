package bgp_test

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// peer returns the status of the router at addr.
func peer(s *bgp.Speaker, addr string) (bgp.PeerStatus, bool) {
	for _, p := range s.Status() {
		if p.Address == netip.MustParseAddr(addr) {
			return p, true
		}
	}
	return bgp.PeerStatus{}, false
}

func established(s *bgp.Speaker, addr string) func() bool {
	return func() bool { p, _ := peer(s, addr); return p.State == "established" }
}

// routeIs waits until Lookup of addr in router's table answers path and communities (nil path:
// no route).
func routeIs(t *testing.T, s *bgp.Speaker, router, addr string, path []uint32, comms ...string) {
	t.Helper()
	testutil.Until(t, 20*time.Second, "the route of "+addr, func() error {
		r, ok := s.Lookup(netip.MustParseAddr(router), netip.MustParseAddr(addr))
		switch {
		case path == nil && !ok:
			return nil
		case path == nil:
			return fmt.Errorf("route %v, want none", *r)
		case !ok:
			return fmt.Errorf("no route")
		case !slices.Equal(r.ASPath, path) || !slices.Equal(r.Communities, comms):
			return fmt.Errorf("route %v %v, want %v %v", r.ASPath, r.Communities, path, comms)
		}
		return nil
	})
}

// TestGoBGPD peers with Debian's gobgpd: the routes it originates are learned with their AS
// path (its own AS first) and communities, large ones too, in both families; a more specific
// route wins and leaves when withdrawn; a blackhole route and a flowspec rule announced reach
// it and leave it when withdrawn; its session is in Status.
func TestGoBGPD(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{}, nil, "127.0.0.2/32")
	g := testenv.StartGoBGPD(t, "127.0.0.2", 64600, port, testenv.SpeakerAS)
	testutil.Eventually(t, "gobgpd's session", established(s, "127.0.0.2"))

	g.CLI("global", "rib", "add", "198.51.100.0/24", "aspath", "64601,64700", "community", "64600:100", "large-community", "64600:1:2", "nexthop", "127.0.0.2")
	g.CLI("global", "rib", "add", "-a", "ipv6", "2001:db8:100::/48", "aspath", "64702", "community", "64600:200", "nexthop", "2001:db8::2")
	routeIs(t, s, "127.0.0.2", "198.51.100.7", []uint32{64600, 64601, 64700}, "64600:100", "64600:1:2")
	routeIs(t, s, "127.0.0.2", "2001:db8:100::9", []uint32{64600, 64702}, "64600:200")
	// Any router's table answers for an exporter that has no session.
	routeIs(t, s, "192.0.2.99", "198.51.100.7", []uint32{64600, 64601, 64700}, "64600:100", "64600:1:2")
	routeIs(t, s, "127.0.0.2", "198.51.101.1", nil)

	g.CLI("global", "rib", "add", "198.51.100.128/25", "aspath", "64703", "nexthop", "127.0.0.2")
	routeIs(t, s, "127.0.0.2", "198.51.100.200", []uint32{64600, 64703})
	routeIs(t, s, "127.0.0.2", "198.51.100.7", []uint32{64600, 64601, 64700}, "64600:100", "64600:1:2")
	g.CLI("global", "rib", "del", "198.51.100.128/25")
	routeIs(t, s, "127.0.0.2", "198.51.100.200", []uint32{64600, 64601, 64700}, "64600:100", "64600:1:2")
	if p, _ := peer(s, "127.0.0.2"); p.AS != 64600 || p.Routes != 2 {
		t.Errorf("status %+v, want AS 64600 and 2 routes", p)
	}

	ctx := context.Background()
	mits := []struct {
		m      bgp.Mitigation
		family string
		want   []string
	}{
		{bgp.Mitigation{Prefix: netip.MustParsePrefix("203.0.113.9/32")}, "ipv4", []string{"203.0.113.9/32", "192.0.2.1", "blackhole"}},
		{bgp.Mitigation{Prefix: netip.MustParsePrefix("2001:db8:dead::1/128")}, "ipv6", []string{"2001:db8:dead::1/128", "100::1", "blackhole"}},
		{bgp.Mitigation{Prefix: netip.MustParsePrefix("203.0.113.10/32"), Flowspec: true, Protocol: 17, Port: 53}, "ipv4-flowspec", []string{"203.0.113.10/32", "protocol: ==udp", "destination-port: ==53", "discard"}},
		{bgp.Mitigation{Prefix: netip.MustParsePrefix("2001:db8:dead::2/128"), Flowspec: true}, "ipv6-flowspec", []string{"2001:db8:dead::2/128", "discard"}},
	}
	for _, c := range mits {
		if err := s.Announce(ctx, c.m); err != nil {
			t.Fatal(err)
		}
		testutil.Until(t, 20*time.Second, "gobgpd to receive "+c.m.Prefix.String(), func() error {
			out, err := g.Query("global", "rib", "-a", c.family)
			if err != nil {
				return err
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					return fmt.Errorf("no %q in gobgpd's %s RIB:\n%s", w, c.family, out)
				}
			}
			return nil
		})
	}
	for _, c := range mits {
		if err := s.Withdraw(ctx, c.m); err != nil {
			t.Fatal(err)
		}
		testutil.Until(t, 20*time.Second, "gobgpd to lose "+c.m.Prefix.String(), func() error {
			out, err := g.Query("global", "rib", "-a", c.family)
			if err == nil && strings.Contains(out, c.m.Prefix.Addr().String()) {
				err = fmt.Errorf("%s still in gobgpd's RIB:\n%s", c.m.Prefix, out)
			}
			return err
		})
	}
	// A Mitigation's next hop (blackhole_nexthop, as alerts pass it) is its route's.
	m := bgp.Mitigation{Prefix: netip.MustParsePrefix("203.0.113.11/32"), NextHop: netip.MustParseAddr("192.0.2.66")}
	if err := s.Announce(ctx, m); err != nil {
		t.Fatal(err)
	}
	testutil.Until(t, 20*time.Second, "gobgpd to receive the next hop", func() error {
		out, err := g.Query("global", "rib", "-a", "ipv4")
		if err == nil && !strings.Contains(out, "192.0.2.66") {
			err = fmt.Errorf("no 192.0.2.66 in gobgpd's RIB:\n%s", out)
		}
		return err
	})
	if err := s.Withdraw(ctx, m); err != nil {
		t.Fatal(err)
	}
	testutil.Until(t, 20*time.Second, "gobgpd to lose 203.0.113.11", func() error {
		out, err := g.Query("global", "rib", "-a", "ipv4")
		if err == nil && strings.Contains(out, "203.0.113.11") {
			err = fmt.Errorf("still there:\n%s", out)
		}
		return err
	})
	// The routes learned are never advertised back.
	if out := g.CLI("neighbor", "127.0.0.1", "adj-in"); strings.Contains(out, "198.51.100.0/24") {
		t.Errorf("the speaker advertised a learned route:\n%s", out)
	}
}
