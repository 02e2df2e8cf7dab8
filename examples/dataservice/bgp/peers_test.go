package bgp_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestBird peers with bird2, a second implementation: its routes are learned with its AS
// first and their communities, and they leave the table when its session ends (bird, not
// restarting gracefully, is killed).
func TestBird(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{}, nil, "127.0.0.3/32")
	b := testenv.StartBird(t, "127.0.0.3", 64700, port, testenv.SpeakerAS, []string{
		"route 198.51.100.0/24 blackhole { bgp_path.prepend(64999); bgp_community.add((64511,7)); bgp_large_community.add((64511,1,2)); };",
		"route 2001:db8:200::/48 blackhole { bgp_community.add((64511,8)); };",
	})
	testutil.Eventually(t, "bird's session", established(s, "127.0.0.3"))
	routeIs(t, s, "127.0.0.3", "198.51.100.7", []uint32{64700, 64999}, "64511:7", "64511:1:2")
	routeIs(t, s, "127.0.0.3", "2001:db8:200::1", []uint32{64700}, "64511:8")
	b.Stop()
	routeIs(t, s, "127.0.0.3", "198.51.100.7", nil)
	routeIs(t, s, "127.0.0.3", "2001:db8:200::1", nil)
}

// logBuffer is a slog handler's output that tests read.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *logBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestRefused: a router outside -bgp-peers cannot open a session; Status lists it refused and
// the log names it once however often it tries.
func TestRefused(t *testing.T) {
	t.Parallel()
	var log logBuffer
	s, port := testenv.StartSpeaker(t, bgp.Config{}, slog.New(slog.NewTextHandler(&log, nil)), "127.0.0.2/32")
	for range 3 {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.9")}}
		c, err := d.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if n, _ := c.Read(make([]byte, 64)); n != 0 {
			t.Error("the speaker answered a refused router")
		}
		c.Close()
	}
	testutil.Eventually(t, "3 refusals", func() bool { return s.Refused() == 3 })
	if p, _ := peer(s, "127.0.0.9"); p.State != "refused" {
		t.Errorf("status %+v, want refused", p)
	}
	if n := strings.Count(log.String(), "127.0.0.9"); n != 1 {
		t.Errorf("the log names the refused router %d times, want once:\n%s", n, log.String())
	}
	s.Stop() // a shutdown is not an error
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("the log has an error:\n%s", log.String())
	}
}

// TestHostilePeer: a router that sends a malformed UPDATE, or one longer than BGP allows, is
// sent a NOTIFICATION and its session reset; gobgpd's session and routes are not affected.
func TestHostilePeer(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{}, nil, "127.0.0.2/32", "127.0.0.4/32")
	g := testenv.StartGoBGPD(t, "127.0.0.2", 64600, port, testenv.SpeakerAS)
	testutil.Eventually(t, "gobgpd's session", established(s, "127.0.0.2"))
	g.CLI("global", "rib", "add", "198.51.100.0/24", "aspath", "64601", "nexthop", "127.0.0.2")
	routeIs(t, s, "127.0.0.2", "198.51.100.7", []uint32{64600, 64601})

	good := update([]uint32{64800}, nil, []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")})
	for _, c := range []struct {
		name  string
		body  []byte
		reset bool
	}{
		// The path attributes' length runs past the message.
		{"attributes past the end", append([]byte{0, 0, 0x10, 0}, good[4:]...), true},
		// 5000 bytes, more than 4096 without the extended message capability.
		{"oversized", append(append([]byte{}, good...), bytes.Repeat([]byte{24, 192, 0, 2}, 1200)...), true},
		// An AS_PATH segment claiming more AS numbers than it holds: the route is treated as
		// withdrawn and the session kept (RFC 7606).
		{"bad AS path", bytes.Replace(good, []byte{0x40, 2, 6, 2, 1}, []byte{0x40, 2, 6, 2, 9}, 1), false},
	} {
		p := dialRaw(t, "127.0.0.4", port, 64800)
		testutil.Eventually(t, "the hostile peer's session", established(s, "127.0.0.4"))
		p.write(2, good)
		routeIs(t, s, "127.0.0.4", "192.0.2.1", []uint32{64800})
		p.write(2, c.body)
		if c.reset {
			if code := p.notified(); code != 1 && code != 3 {
				t.Errorf("%s: NOTIFICATION code %d, want 1 (header) or 3 (UPDATE)", c.name, code)
			}
		}
		routeIs(t, s, "127.0.0.4", "192.0.2.1", nil)
		if !c.reset {
			if st, _ := peer(s, "127.0.0.4"); st.State != "established" {
				t.Errorf("%s: session %s, want established", c.name, st.State)
			}
			p.conn.Close()
			testutil.Eventually(t, "the hostile peer's session to end", func() bool { st, _ := peer(s, "127.0.0.4"); return st.State != "established" })
		}
		if err := g.Established(); err != nil {
			t.Fatalf("%s: gobgpd's session: %v", c.name, err)
		}
		routeIs(t, s, "127.0.0.2", "198.51.100.7", []uint32{64600, 64601})
	}
}

// TestMaxPrefixes: a router may send MaxPrefixes routes; one more resets its session and its
// routes leave the table; it may connect again.
func TestMaxPrefixes(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{MaxPrefixes: 100}, nil, "127.0.0.5/32")
	p := dialRaw(t, "127.0.0.5", port, 64801)
	var prefixes []netip.Prefix
	for i := range 101 {
		prefixes = append(prefixes, netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 1, byte(i), 0}), 24))
	}
	p.write(2, update([]uint32{64801}, nil, prefixes[:100]))
	testutil.Eventually(t, "100 routes", func() bool { st, _ := peer(s, "127.0.0.5"); return st.Routes == 100 })
	routeIs(t, s, "127.0.0.5", "10.1.99.1", []uint32{64801})
	p.write(2, update([]uint32{64801}, nil, prefixes[100:]))
	if code := p.notified(); code != 6 {
		t.Errorf("NOTIFICATION code %d, want 6 (cease)", code)
	}
	routeIs(t, s, "127.0.0.5", "10.1.99.1", nil)
	// The router is not locked out: it may open a session again.
	p = dialRaw(t, "127.0.0.5", port, 64801)
	p.write(2, update([]uint32{64801}, nil, prefixes[:1]))
	routeIs(t, s, "127.0.0.5", "10.1.0.1", []uint32{64801})
}

// TestMaxAttrBytes: a router may send routes whose distinct AS paths and communities take
// MaxAttrBytes (64 KB here, ~2 KB a set of 63 communities); past it its session is reset
// (Cease, out of resources) and its routes leave the table, however few routes it sent; it
// may connect again.
func TestMaxAttrBytes(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{MaxAttrBytes: 64 << 10}, nil, "127.0.0.18/32")
	p := dialRaw(t, "127.0.0.18", port, 64808)
	comms := make([]uint32, 63)
	for i := range comms {
		comms[i] = 64808<<16 | uint32(i)
	}
	first := netip.MustParsePrefix("10.5.0.0/24")
	p.write(2, update([]uint32{64808, 1}, comms, []netip.Prefix{first}))
	routeIs(t, s, "127.0.0.18", "10.5.0.1", []uint32{64808, 1}, communities(comms)...)
	for i := range 100 { // each route of a set of its own: ~200 KB in all
		p.write(2, update([]uint32{64808, uint32(2 + i)}, comms, []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 5, byte(1 + i), 0}), 24)}))
	}
	typ, b := p.read()
	for typ == 2 || typ == 4 { // End-of-RIB, KEEPALIVE
		typ, b = p.read()
	}
	if typ != 3 || b[0] != 6 || b[1] != 8 {
		t.Fatalf("message %d (%x), want a NOTIFICATION 6 (cease) subcode 8 (out of resources)", typ, b)
	}
	routeIs(t, s, "127.0.0.18", "10.5.0.1", nil)
	p = dialRaw(t, "127.0.0.18", port, 64808)
	p.write(2, update([]uint32{64808, 1}, comms, []netip.Prefix{first}))
	routeIs(t, s, "127.0.0.18", "10.5.0.1", []uint32{64808, 1}, communities(comms)...)
}

// communities are comms as a Route shows them.
func communities(comms []uint32) []string {
	var out []string
	for _, c := range comms {
		out = append(out, fmt.Sprintf("%d:%d", c>>16, c&0xffff))
	}
	return out
}

// TestMaxRouters: with -bgp-peers a prefix, the routers the speaker knows (those that sent a
// valid OPEN) are bounded (4 here): while each has its session, a connection from a fifth
// address is closed at once, before the speaker's OPEN, and is not in Status; a router it
// knows may still connect.
func TestMaxRouters(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{MaxRouters: 4}, nil, "127.0.1.0/24")
	var first *rawPeer
	for i := 1; i <= 4; i++ {
		addr := fmt.Sprintf("127.0.1.%d", i)
		p := dialRaw(t, addr, port, uint32(64810+i))
		testutil.Eventually(t, "the session of "+addr, established(s, addr))
		if i == 1 {
			first = p
		}
	}
	if typ, _ := connect(t, "127.0.1.5", port).read(); typ != 0 {
		t.Errorf("a fifth router got message %d, want the connection closed", typ)
	}
	if _, ok := peer(s, "127.0.1.5"); ok {
		t.Error("the fifth router is in Status")
	}
	first.conn.Close()
	testutil.Eventually(t, "the first session to end", func() bool { p, _ := peer(s, "127.0.1.1"); return p.State == "idle" })
	dialRaw(t, "127.0.1.1", port, 64811)
	testutil.Eventually(t, "a known router's session", established(s, "127.0.1.1"))
}

// TestFamilyNotNegotiated: UPDATEs of families the router did not negotiate (IPv4 flowspec,
// which the speaker offers, and EVPN, which it does not) are ignored: no route learned, the
// session and the router's unicast routes stay. (An AFI/SAFI the wire library does not know
// resets the session, as RFC 4760 §7 allows.)
func TestFamilyNotNegotiated(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{}, nil, "127.0.0.21/32")
	p := dialRaw(t, "127.0.0.21", port, 64812)
	p.write(2, update([]uint32{64812}, nil, []netip.Prefix{netip.MustParsePrefix("10.7.0.0/16")}))
	routeIs(t, s, "127.0.0.21", "10.7.0.1", []uint32{64812})
	for _, c := range []struct {
		name    string
		mpReach []byte // AFI, SAFI, next hop, reserved, NLRI
	}{
		{"IPv4 flowspec", []byte{0, 1, 133, 0, 0, 6, 1, 32, 203, 0, 113, 9}},
		{"EVPN", []byte{0, 25, 70, 4, 127, 0, 0, 21, 0, 3, 17, 0, 0, 0, 0, 0xfd, 0x2c, 0, 1, 0, 0, 0, 0, 32, 127, 0, 0, 21}},
	} {
		attrs := []byte{0x40, 1, 1, 0, 0x40, 2, 6, 2, 1, 0, 0, 0xfd, 0x2c, 0x80, 14, byte(len(c.mpReach))}
		attrs = append(attrs, c.mpReach...)
		p.write(2, append(binary.BigEndian.AppendUint16([]byte{0, 0}, uint16(len(attrs))), attrs...))
		p.write(2, update([]uint32{64812, 1}, nil, []netip.Prefix{netip.MustParsePrefix("10.8.0.0/16")}))
		routeIs(t, s, "127.0.0.21", "10.8.0.1", []uint32{64812, 1}) // read after the UPDATE before
		if st, _ := peer(s, "127.0.0.21"); st.State != "established" || st.Routes != 2 {
			t.Errorf("%s: session %s with %d routes, want established with 2", c.name, st.State, st.Routes)
		}
		p.write(2, []byte{0, 3, 16, 10, 8, 0, 0}) // withdraw 10.8.0.0/16
		routeIs(t, s, "127.0.0.21", "10.8.0.1", nil)
	}
	routeIs(t, s, "127.0.0.21", "10.7.0.1", []uint32{64812})
}
