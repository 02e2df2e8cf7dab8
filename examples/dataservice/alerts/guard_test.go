package alerts_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// TestGuardEmbeddedIPv4 checks that an IPv6 address embedding a private, loopback or
// link-local IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo) is refused as
// that IPv4 address is, and that the same forms of a public address pass where the IPv6
// prefix itself is public.
func TestGuardEmbeddedIPv4(t *testing.T) {
	t.Parallel()
	g := alerts.NewGuard(nil)
	for _, c := range []struct {
		addr    string
		allowed bool
	}{
		{"::ffff:10.1.2.3", false},
		{"::ffff:8.8.8.8", true},
		{"::127.0.0.1", false},
		{"::10.0.0.1", false},
		{"::169.254.169.254", false},
		{"::8.8.8.8", true},
		{"::ffff:0:192.168.1.1", false},
		{"64:ff9b::10.0.0.1", false},
		{"64:ff9b::7f00:1", false},
		{"64:ff9b::169.254.169.254", false},
		{"64:ff9b::192.168.0.1", false},
		{"64:ff9b::100.64.0.1", false},
		{"64:ff9b::8.8.8.8", true},
		{"64:ff9b:1::10.0.0.1", false},
		{"64:ff9b:1::8.8.8.8", false}, // local-use NAT64: refused unless allowed
		{"2002:a00:1::1", false},      // 6to4 of 10.0.0.1
		{"2002:7f00:1::", false},      // 6to4 of 127.0.0.1
		{"2002:a9fe:a9fe::1", false},  // 6to4 of 169.254.169.254
		{"2002:c0a8:101:1::1", false}, // 6to4 of 192.168.1.1
		{"2002:808:808::1", true},     // 6to4 of 8.8.8.8
		{"2001:0:808:808::f5ff:fffe", false},
	} {
		if got := g.Allowed(netip.MustParseAddr(c.addr)); got != c.allowed {
			t.Errorf("%s: allowed %v, want %v", c.addr, got, c.allowed)
		}
	}
	// Allowing the IPv6 prefix of a translator does not allow the private IPv4 addresses
	// behind it; allowing those IPv4 addresses allows them in every spelling.
	teredo := alerts.NewGuard([]netip.Prefix{netip.MustParsePrefix("2001::/32"), netip.MustParsePrefix("64:ff9b:1::/48")})
	for _, c := range []struct {
		addr    string
		allowed bool
	}{
		{"2001:0:808:808::f5ff:fffe", false}, // client 10.0.0.1 (inverted)
		{"2001:0:808:808::f7f7:f7f7", true},  // client 8.8.8.8
		{"2001:0:a00:1::f7f7:f7f7", false},   // server 10.0.0.1
		{"64:ff9b:1::10.0.0.1", false},
		{"64:ff9b:1::8.8.8.8", true},
	} {
		if got := teredo.Allowed(netip.MustParseAddr(c.addr)); got != c.allowed {
			t.Errorf("allowing 2001::/32 and 64:ff9b:1::/48, %s: allowed %v, want %v", c.addr, got, c.allowed)
		}
	}
	ten := alerts.NewGuard([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")})
	for _, a := range []string{"10.0.0.1", "::ffff:10.0.0.1", "64:ff9b::10.0.0.1", "2002:a00:1::1", "::10.0.0.1"} {
		if !ten.Allowed(netip.MustParseAddr(a)) {
			t.Errorf("allowing 10.0.0.0/8, %s refused", a)
		}
	}
}

// embeds returns the IPv4 addresses an IPv6 address reaches through a translator or a
// tunnel, read by the RFCs' layouts (for FuzzGuard, independently of the guard).
func embeds(b [16]byte) []netip.Addr {
	zero := func(bs []byte) bool { return strings.Count(string(bs), "\x00") == len(bs) }
	v4 := func(bs []byte) netip.Addr { return netip.AddrFrom4([4]byte(bs)) }
	switch {
	case zero(b[:10]) && (b[10] == 0 && b[11] == 0 || b[10] == 0xff && b[11] == 0xff): // ::a.b.c.d, ::ffff:a.b.c.d
		return []netip.Addr{v4(b[12:])}
	case zero(b[:8]) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0: // ::ffff:0:a.b.c.d
		return []netip.Addr{v4(b[12:])}
	case b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && zero(b[4:12]): // 64:ff9b::/96
		return []netip.Addr{v4(b[12:])}
	case b[0] == 0x20 && b[1] == 0x02: // 2002::/16
		return []netip.Addr{v4(b[2:6])}
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0: // Teredo 2001::/32
		return []netip.Addr{v4(b[4:8]), v4([]byte{^b[12], ^b[13], ^b[14], ^b[15]})}
	}
	return nil
}

// FuzzGuard checks the guard's classification of any address: an IPv6 address is never
// allowed when an IPv4 address it embeds is refused, every spelling of an IPv4 address
// whose IPv6 prefix is public is judged as the IPv4 address is, and the service's own
// listening port is refused on the host's addresses whatever the allow-list.
func FuzzGuard(f *testing.F) {
	for _, s := range []string{"::ffff:10.0.0.1", "64:ff9b::7f00:1", "2002:a00:1::1", "2001:0:808:808::f5ff:fffe",
		"::1", "8.8.8.8", "10.0.0.1", "2606:4700::1111", "fe80::1", "64:ff9b:1::a00:1"} {
		b := netip.MustParseAddr(s).As16()
		f.Add(b[:], uint16(443))
	}
	none := alerts.NewGuard(nil)
	ten := alerts.NewGuard([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001::/32")})
	all := alerts.NewGuard([]netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")},
		netip.MustParseAddrPort("0.0.0.0:8443"), netip.MustParseAddrPort("[::1]:9464"))
	f.Fuzz(func(t *testing.T, raw []byte, port uint16) {
		var b [16]byte
		copy(b[:], raw)
		a := netip.AddrFrom16(b)
		for _, g := range []*alerts.Guard{none, ten, all} {
			if !g.Allowed(a) {
				continue
			}
			for _, e := range embeds(b) {
				if !g.Allowed(e) {
					t.Fatalf("%s allowed, but the %s it embeds is refused (allow %v)", a, e, g.Allow)
				}
			}
		}
		v4 := netip.AddrFrom4([4]byte(b[12:]))
		for _, spelling := range []string{"::ffff:", "64:ff9b::", "::"} {
			x := netip.MustParseAddr(spelling + v4.String())
			if none.Allowed(x) != none.Allowed(v4) {
				t.Fatalf("%s allowed %v, %s allowed %v", x, none.Allowed(x), v4, none.Allowed(v4))
			}
		}
		for _, l := range []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:8443"), netip.MustParseAddrPort("[::ffff:127.0.0.2]:8443"),
			netip.MustParseAddrPort("0.0.0.0:8443"), netip.MustParseAddrPort("[::]:8443"), netip.MustParseAddrPort("[::1]:9464")} {
			if all.AllowedPort(l) {
				t.Fatalf("%s, the service's own, allowed", l)
			}
		}
		if port != 8443 && port != 9464 && !all.AllowedPort(netip.AddrPortFrom(a, port)) {
			t.Fatalf("%s refused with everything allowed", netip.AddrPortFrom(a, port))
		}
	})
}

// TestWebhookOwnAddress checks that a webhook to the service's own listening address is
// refused when it is sent, whatever -webhook-allow says: the address dialled after DNS (a
// name resolving to it) included. Here the service's own HTTPS listener is a receiver that
// acknowledges anything, bound to 0.0.0.0, reached on loopback and on the host's other
// addresses.
func TestWebhookOwnAddress(t *testing.T) {
	t.Parallel()
	own := newReceiver(t, "k")
	own.srv.Close()
	ln, err := net.Listen("tcp4", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	own.srv = httptest.NewUnstartedServer(http.HandlerFunc(own.serve))
	own.srv.Listener = ln
	own.srv.StartTLS()
	listen := netip.MustParseAddrPort(ln.Addr().String())
	port := listen.Port()
	urls := []string{"https://localhost:" + strconv.Itoa(int(port)) + "/hook", "https://127.0.0.1:" + strconv.Itoa(int(port)) + "/hook",
		"https://127.0.0.2:" + strconv.Itoa(int(port)) + "/hook", "https://[::ffff:127.0.0.1]:" + strconv.Itoa(int(port)) + "/hook"}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Is4() && !p.Addr().IsLoopback() {
				urls = append(urls, "https://"+netip.AddrPortFrom(p.Addr(), port).String()+"/hook")
			}
		}
	}
	o := own.options()
	o.WebhookAllow = []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}
	o.Listen, o.Attempts = []netip.AddrPort{listen}, 1
	e := newEnv(t, o)
	ctx := context.Background()
	t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	var cs []alerts.Channel
	for _, u := range urls {
		cs = append(cs, alerts.Channel{Webhook: u, Secret: "k"})
	}
	e.rule(t, state.AlertRule{Name: "any", Query: "records HAVING records > 0 SINCE @now-60", Notify: notify(t, cs...)})
	e.traffic(t, t0.Unix()-1, "10.0.0.1", 1)
	e.tick(t, t0)
	if err := e.svc.Deliver(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	states, err := e.st.Channels(ctx)
	if err != nil || len(states) != len(urls) {
		t.Fatalf("channel states %+v, %v", states, err)
	}
	for _, c := range states {
		if !c.Done || !strings.Contains(c.Error, "not allowed for webhooks") {
			t.Errorf("%s: %+v; want refused", c.Target, c)
		}
	}
	if _, tries, _ := own.deliveries(); tries != 0 {
		t.Fatalf("the service's own address was reached %d times", tries)
	}
}
