package bgp_test

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestBareConnectionsTakeNoRouter: addresses of -bgp-peers that connect and send no OPEN, gone
// or still connected, are not routers: Status does not list them, and as many routers as
// MaxRouters (4 here) open their sessions afterwards.
func TestBareConnectionsTakeNoRouter(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{MaxRouters: 4}, nil, "127.0.2.0/24")
	for i := 1; i <= 8; i++ {
		p := connect(t, fmt.Sprintf("127.0.2.%d", i), port)
		if typ, _ := p.read(); typ != 1 {
			t.Fatalf("connection %d: message %d from the speaker, want its OPEN", i, typ)
		}
		if i <= 4 {
			p.conn.Close()
		}
	}
	if st := s.Status(); len(st) != 0 {
		t.Errorf("Status lists connections without an OPEN: %+v", st)
	}
	for i := 200; i < 204; i++ {
		addr := fmt.Sprintf("127.0.2.%d", i)
		dialRaw(t, addr, port, uint32(64800+i))
		testutil.Eventually(t, "the session of "+addr, established(s, addr))
	}
	if st := s.Status(); len(st) != 4 {
		t.Errorf("Status: %+v, want the 4 routers", st)
	}
}

// TestIdleRouterMakesRoom: with MaxRouters routers (2 here), a new router takes the place of
// one without a session nor routes; when every router has its session, a connection from a new
// address is closed at once.
func TestIdleRouterMakesRoom(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{MaxRouters: 2}, nil, "127.0.3.0/24")
	gone := dialRaw(t, "127.0.3.1", port, 64831)
	testutil.Eventually(t, "the first session", established(s, "127.0.3.1"))
	gone.conn.Close()
	testutil.Eventually(t, "the first session to end", func() bool { p, _ := peer(s, "127.0.3.1"); return p.State == "idle" })
	b := dialRaw(t, "127.0.3.2", port, 64832)
	b.write(2, update([]uint32{64832}, nil, []netip.Prefix{netip.MustParsePrefix("10.32.0.0/16")}))
	routeIs(t, s, "127.0.3.2", "10.32.0.1", []uint32{64832})

	dialRaw(t, "127.0.3.3", port, 64833)
	testutil.Eventually(t, "the third router's session", established(s, "127.0.3.3"))
	if _, ok := peer(s, "127.0.3.1"); ok {
		t.Error("the idle router is still in Status")
	}
	if p, _ := peer(s, "127.0.3.2"); p.State != "established" || p.Routes != 1 {
		t.Errorf("the second router: %+v, want established with its route", p)
	}
	if typ, _ := connect(t, "127.0.3.4", port).read(); typ != 0 {
		t.Errorf("a router past the bound got message %d, want the connection closed", typ)
	}
	if _, ok := peer(s, "127.0.3.4"); ok {
		t.Error("the router past the bound is in Status")
	}
}

// TestOpeningBounded: the connections from new addresses that have not sent their OPEN are
// bounded: past bgp.MaxOpening of them, the oldest is closed (a NOTIFICATION Cease, out of
// resources) for the newest; a router that sends its OPEN still opens its session.
func TestOpeningBounded(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{}, nil, "127.0.4.0/24")
	var conns []*rawPeer
	for i := range bgp.MaxOpening + 2 {
		p := connect(t, fmt.Sprintf("127.0.4.%d", 1+i), port)
		if typ, _ := p.read(); typ != 1 {
			t.Fatalf("connection %d: message %d from the speaker, want its OPEN", i, typ)
		}
		conns = append(conns, p)
	}
	for i, p := range conns[:2] {
		if typ, b := p.read(); typ != 3 || b[0] != 6 || b[1] != 8 {
			t.Errorf("connection %d: message %d (%x), want a NOTIFICATION 6 (cease) subcode 8 (out of resources)", i, typ, b)
		}
		if typ, _ := p.read(); typ != 0 {
			t.Errorf("connection %d is still open: message %d", i, typ)
		}
	}
	dialRaw(t, "127.0.4.250", port, 64840)
	testutil.Eventually(t, "the router's session", established(s, "127.0.4.250"))
	if st := s.Status(); len(st) != 1 {
		t.Errorf("Status: %+v, want the router only", st)
	}
}
