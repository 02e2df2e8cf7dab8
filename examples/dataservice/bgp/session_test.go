package bgp_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestHoldTimer: a router that agreed a hold time of 3 s gets KEEPALIVEs (every second) and,
// silent past it, a NOTIFICATION Hold Timer Expired; its routes go.
func TestHoldTimer(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{}, nil, "127.0.0.12/32")
	p := connect(t, "127.0.0.12", port)
	p.write(1, openBody("127.0.0.12", 64802, 3))
	for _, want := range []byte{1, 4} {
		if typ, b := p.read(); typ != want {
			t.Fatalf("message %d from the speaker (%x), want %d", typ, b, want)
		}
	}
	p.write(4, nil)
	p.write(2, update([]uint32{64802}, nil, []netip.Prefix{netip.MustParsePrefix("10.2.0.0/16")}))
	routeIs(t, s, "127.0.0.12", "10.2.0.1", []uint32{64802})
	keepalives := 0
	for {
		typ, b := p.read()
		if typ == 0 {
			t.Fatal("the connection ended without a NOTIFICATION")
		}
		if typ == 4 {
			keepalives++
			continue
		}
		if typ == 3 {
			if b[0] != 4 {
				t.Errorf("NOTIFICATION code %d, want 4 (hold timer expired)", b[0])
			}
			break
		}
	}
	if keepalives == 0 {
		t.Error("no KEEPALIVE from the speaker within the hold time")
	}
	routeIs(t, s, "127.0.0.12", "10.2.0.1", nil)
}

// TestBadOpen: an OPEN the speaker cannot accept gets a NOTIFICATION of the OPEN error's
// subcode, and no session.
func TestBadOpen(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{}, nil, "127.0.0.13/32")
	good := openBody("127.0.0.13", 64803, 90)
	for _, c := range []struct {
		name string
		body []byte
		sub  byte
	}{
		{"version 3", append([]byte{3}, good[1:]...), 1},
		{"BGP identifier 0.0.0.0", append(append(good[:5:5], 0, 0, 0, 0), good[9:]...), 3},
		{"hold time 2 s", append(append(good[:3:3], 0, 2), good[5:]...), 6},
	} {
		p := connect(t, "127.0.0.13", port)
		if typ, _ := p.read(); typ != 1 {
			t.Fatalf("%s: message %d from the speaker, want its OPEN", c.name, typ)
		}
		p.write(1, c.body)
		typ, b := p.read()
		if typ != 3 || b[0] != 2 || b[1] != c.sub {
			t.Errorf("%s: message %d (%x), want a NOTIFICATION 2 (OPEN error) subcode %d", c.name, typ, b, c.sub)
		}
		if st, _ := peer(s, "127.0.0.13"); st.State == "established" {
			t.Errorf("%s: session established", c.name)
		}
	}
}

// TestCollision: a second connection from a router whose session is Established is closed
// with a NOTIFICATION Cease (connection collision resolution); the session and its routes stay.
func TestCollision(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{}, nil, "127.0.0.14/32")
	p := dialRaw(t, "127.0.0.14", port, 64804)
	p.write(2, update([]uint32{64804}, nil, []netip.Prefix{netip.MustParsePrefix("10.3.0.0/16")}))
	routeIs(t, s, "127.0.0.14", "10.3.0.1", []uint32{64804})
	q := connect(t, "127.0.0.14", port)
	if typ, b := q.read(); typ != 3 || b[0] != 6 || b[1] != 7 {
		t.Errorf("the second connection got message %d (%x), want a NOTIFICATION 6 (cease) subcode 7", typ, b)
	}
	if typ, _ := q.read(); typ != 0 {
		t.Errorf("the second connection is still open: message %d", typ)
	}
	if st, _ := peer(s, "127.0.0.14"); st.State != "established" {
		t.Errorf("the first session: %s, want established", st.State)
	}
	routeIs(t, s, "127.0.0.14", "10.3.0.1", []uint32{64804})
}

// announcedTo starts a speaker that announces prefix (a /32), opens a raw session of AS as from
// local and reads the announcement and End-of-RIB; announced accepts an UPDATE that announces
// prefix.
func announcedTo(t *testing.T, local string, as uint32, prefix string) (*bgp.Speaker, *rawPeer, bgp.Mitigation, func([]byte) bool) {
	t.Helper()
	s, port := testenv.StartSpeaker(t, bgp.Config{}, nil, local+"/32")
	m := bgp.Mitigation{Prefix: netip.MustParsePrefix(prefix)}
	if err := s.Announce(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	nlri := append([]byte{32}, m.Prefix.Addr().AsSlice()...)
	p := dialRaw(t, local, port, as)
	announced := func(b []byte) bool { return bytes.HasSuffix(b, nlri) && b[0] == 0 && b[1] == 0 }
	p.until(t, "the announcement", announced)
	p.until(t, "End-of-RIB", func(b []byte) bool { return len(b) == 4 })
	return s, p, m, announced
}

// TestRouteRefresh: a router gets the announcements made before its session when it is
// Established, again when it sends ROUTE-REFRESH, and their withdrawal.
func TestRouteRefresh(t *testing.T) {
	t.Parallel()
	s, p, m, announced := announcedTo(t, "127.0.0.15", 64805, "203.0.113.9/32")
	nlri := append([]byte{32}, m.Prefix.Addr().AsSlice()...)
	p.write(5, []byte{0, 1, 0, 1}) // IPv4 unicast
	p.until(t, "the announcement again", announced)
	if err := s.Withdraw(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	p.until(t, "the withdrawal", func(b []byte) bool { return bytes.HasPrefix(b, append([]byte{0, 5}, nlri...)) })
	testutil.Eventually(t, "the session", established(s, "127.0.0.15"))
}

// TestRouteRefreshBurst: a burst of ROUTE-REFRESHes is answered at once and once more at the
// end of the refresh gap (a second), not once for each: a router cannot make the speaker
// encode its announcements without end.
func TestRouteRefreshBurst(t *testing.T) {
	t.Parallel()
	s, p, m, announced := announcedTo(t, "127.0.0.23", 64823, "203.0.113.23/32")
	nlri := append([]byte{32}, m.Prefix.Addr().AsSlice()...)
	for range 50 {
		p.write(5, []byte{0, 1, 0, 1}) // IPv4 unicast
	}
	// An UPDATE after them: once it is learned, the session has read every refresh.
	p.write(2, update([]uint32{64823}, nil, []netip.Prefix{netip.MustParsePrefix("10.23.0.0/16")}))
	routeIs(t, s, "127.0.0.23", "10.23.0.1", []uint32{64823})
	p.until(t, "the answer to the first refresh", announced)
	p.until(t, "the answer at the end of the gap", announced)
	if err := s.Withdraw(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	answers := 2
	p.until(t, "the withdrawal", func(b []byte) bool {
		if announced(b) {
			answers++
		}
		return bytes.HasPrefix(b, append([]byte{0, 5}, nlri...))
	})
	if answers > 3 {
		t.Errorf("50 refreshes answered %d times, want 2 (at once, and at the end of the gap)", answers)
	}
}

// TestOpenTimeout: a router that connects and sends no OPEN within the hold time offered (3 s
// here) gets a NOTIFICATION Hold Timer Expired and may connect again.
func TestOpenTimeout(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{HoldTime: 3 * time.Second}, nil, "127.0.0.16/32")
	p := connect(t, "127.0.0.16", port)
	if typ, _ := p.read(); typ != 1 {
		t.Fatalf("message %d from the speaker, want its OPEN", typ)
	}
	if typ, b := p.read(); typ != 3 || b[0] != 4 {
		t.Errorf("message %d (%x), want a NOTIFICATION 4 (hold timer expired)", typ, b)
	}
	dialRaw(t, "127.0.0.16", port, 64806)
	testutil.Eventually(t, "the session", established(s, "127.0.0.16"))
}

// TestTwoOctetAS: a router without 4-octet AS numbers (RFC 6793) sends its paths with AS_TRANS
// and an AS4_PATH: the routes learned have the AS numbers of 4 octets.
func TestTwoOctetAS(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{}, nil, "127.0.0.17/32")
	p := connect(t, "127.0.0.17", port)
	// Version, AS 64807, hold time 0, identifier, IPv4 unicast only.
	p.write(1, []byte{4, 0xfd, 0x27, 0, 0, 127, 0, 0, 17, 8, 2, 6, 1, 4, 0, 1, 0, 1})
	for _, want := range []byte{1, 4} {
		if typ, b := p.read(); typ != want {
			t.Fatalf("message %d from the speaker (%x), want %d", typ, b, want)
		}
	}
	p.write(4, nil)
	attrs := []byte{0x40, 1, 1, 0, 0x40, 2, 6, 2, 2, 0xfd, 0x27, 0x5b, 0xa0, 0x40, 3, 4, 127, 0, 0, 17,
		0xc0, 17, 6, 2, 1, 0xfa, 0x56, 0xea, 0x01} // AS_PATH 64807 AS_TRANS, AS4_PATH 4200000001
	body := append([]byte{0, 0, 0, byte(len(attrs))}, attrs...)
	p.write(2, append(body, 16, 10, 4))
	routeIs(t, s, "127.0.0.17", "10.4.0.1", []uint32{64807, 4200000001})
}

// TestRouterNotReading: a router that stops reading (a 4 KB receive buffer) while the speaker
// announces loses its session once a write has stalled 10 s or 4,096 messages wait for it;
// Announce never waits for it, and the other router's session goes on.
func TestRouterNotReading(t *testing.T) {
	t.Parallel()
	s, port := testenv.StartSpeaker(t, bgp.Config{}, nil, "127.0.0.19/32", "127.0.0.20/32")
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.19")}, Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		if cerr := c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) }); cerr != nil {
			return cerr
		}
		return err
	}}
	conn, err := d.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	(&rawPeer{conn: conn, t: t}).open("127.0.0.19", 64809)
	other := dialRaw(t, "127.0.0.20", port, 64810)
	go io.Copy(io.Discard, other.conn) //nolint:errcheck // reads until the test's end
	testutil.Eventually(t, "both sessions", func() bool {
		return established(s, "127.0.0.19")() && established(s, "127.0.0.20")()
	})
	// Announce until the session ends: the router's and the speaker's socket buffers first,
	// then the bound.
	ended := false
	for i := 0; i < 1<<20 && !ended; i++ {
		m := bgp.Mitigation{Prefix: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32)}
		if err := s.Announce(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		ended = i%1000 == 999 && !established(s, "127.0.0.19")()
	}
	if !ended {
		t.Fatal("the session of the router that does not read is still established")
	}
	other.write(2, update([]uint32{64810}, nil, []netip.Prefix{netip.MustParsePrefix("10.6.0.0/16")}))
	routeIs(t, s, "127.0.0.20", "10.6.0.1", []uint32{64810})
}

// TestReconnectLoop: a router that connects again and again, each connection's session ending
// at once (an OPEN of version 3) and left open, holds one connection at most: the speaker
// drains an ended connection so that its NOTIFICATION arrives (2 s; an hour here), and a
// newer connection of the router cuts that short, else each connection of a loop would hold a
// session's buffers for the drain.
func TestReconnectLoop(t *testing.T) { // not parallel: it sets the drain time
	t.Cleanup(bgp.SetDrainTime(time.Hour)) // after the speaker's Stop
	_, port := testenv.StartSpeaker(t, bgp.Config{}, nil, "127.0.0.22/32")
	bad := append([]byte{3}, openBody("127.0.0.22", 64813, 90)[1:]...)
	var prev *rawPeer
	for i := range 3 {
		p := connect(t, "127.0.0.22", port)
		if typ, _ := p.read(); typ != 1 {
			t.Fatalf("connection %d: message %d from the speaker, want its OPEN", i, typ)
		}
		p.write(1, bad)
		if typ, _ := p.read(); typ != 3 {
			t.Fatalf("connection %d: message %d from the speaker, want a NOTIFICATION", i, typ)
		}
		if prev != nil { // closed by the speaker: what the router writes is refused (not drained)
			testutil.Eventually(t, fmt.Sprintf("connection %d to be closed", i-1), func() bool {
				_, err := prev.conn.Write(make([]byte, 1024))
				return err != nil
			})
		}
		prev = p
	}
}
