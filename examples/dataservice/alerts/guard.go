package alerts

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Guard decides which addresses webhooks may reach: public addresses, and those Allow
// holds, but never the service's own listening addresses. The zero value allows public
// addresses only.
//
// An IPv6 address that embeds an IPv4 one (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible
// ::a.b.c.d, NAT64 64:ff9b::a.b.c.d and, in its last 32 bits, the local-use 64:ff9b:1::/48,
// 6to4 2002:AABB:CCDD::/48, Teredo 2001:0:SSSS:SSSS::/32 with the client's address inverted
// in its last 32 bits) reaches that IPv4 address through a translator or a tunnel: it is
// allowed only when the IPv4 address is too, so that no spelling of a private address passes
// for public.
type Guard struct {
	// Allow lists the prefixes allowed besides public addresses (the -webhook-allow flag).
	Allow []netip.Prefix
	// Own lists the host's addresses, refused unless Allow holds them. Default: none but
	// what is never public (loopback); NewGuard fills it from the host's interfaces.
	Own []netip.Addr
	// Listen lists the service's own listening addresses (HTTPS, metrics). Their ports on
	// any address of the host (Own and the interfaces' addresses of the moment, loopback,
	// the unspecified 0.0.0.0 and ::, which reach the host) are refused whatever Allow
	// holds: a rule cannot make the service call itself.
	Listen []netip.AddrPort
}

// NewGuard returns a Guard allowing allow besides public addresses, refusing the addresses
// of the host's interfaces (as they are when it is made) and the service's listening
// addresses listen.
func NewGuard(allow []netip.Prefix, listen ...netip.AddrPort) *Guard {
	return &Guard{Allow: allow, Listen: listen, Own: hostAddrs()}
}

// ParseAllow parses the -webhook-allow flag: CIDR prefixes (or single addresses) separated
// by commas.
func ParseAllow(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("webhook-allow: %q is neither an address nor a CIDR prefix", f)
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("webhook-allow: %q is neither an address nor a CIDR prefix", f)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// errRefused is the failure of a webhook to an address the guard refuses.
var errRefused = errors.New("address not allowed for webhooks (not public, or the service's own; see -webhook-allow)")

// Allowed reports whether a webhook may reach a (on a port the service does not listen on).
func (g *Guard) Allowed(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if !g.allowed1(a) {
		return false
	}
	for _, v4 := range embedded(a) {
		if !g.allowed1(v4) {
			return false
		}
	}
	return true
}

// AllowedPort reports whether a webhook may reach ap: Allowed, and not one of the service's
// listening addresses.
func (g *Guard) AllowedPort(ap netip.AddrPort) bool {
	return g.Allowed(ap.Addr()) && !g.listening(ap)
}

// allowedAt is AllowedPort for the port of a URL: "" is HTTPS's 443.
func (g *Guard) allowedAt(a netip.Addr, port string) bool {
	p, err := strconv.ParseUint(cmp.Or(port, "443"), 10, 16)
	return err == nil && g.AllowedPort(netip.AddrPortFrom(a, uint16(p)))
}

// allowed1 judges a alone, whatever it embeds.
func (g *Guard) allowed1(a netip.Addr) bool {
	for _, p := range g.Allow {
		if p.Contains(a) {
			return true
		}
	}
	return !own(g.Own, a) && public(a)
}

// listening reports whether ap is one of the service's listening addresses: a port it
// listens on, at an address of the host (as it is now: interfaces come and go) or the one
// the listener is bound to.
func (g *Guard) listening(ap netip.AddrPort) bool {
	a := ap.Addr().Unmap().WithZone("")
	for _, l := range g.Listen {
		if l.Port() != ap.Port() {
			continue
		}
		for _, x := range append(embedded(a), a) {
			if x.IsLoopback() || x.IsUnspecified() || x == l.Addr().Unmap().WithZone("") || own(g.Own, x) || own(hostAddrs(), x) {
				return true
			}
		}
	}
	return false
}

// own reports whether addrs holds a.
func own(addrs []netip.Addr, a netip.Addr) bool {
	return slices.ContainsFunc(addrs, func(o netip.Addr) bool { return o.Unmap().WithZone("") == a })
}

// hostAddrs returns the addresses of the host's interfaces.
func hostAddrs() []netip.Addr {
	var out []netip.Addr
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil {
				out = append(out, p.Addr())
			}
		}
	}
	return out
}

// Prefixes whose addresses embed an IPv4 address (see Guard).
var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	compatible = netip.MustParsePrefix("::/96")
	translated = netip.MustParsePrefix("::ffff:0:0:0/96")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	teredo     = netip.MustParsePrefix("2001::/32")
)

// embedded returns the IPv4 addresses an IPv6 address a (unmapped) reaches through a
// translator or a tunnel: none for an address that embeds none.
func embedded(a netip.Addr) []netip.Addr {
	if !a.Is6() {
		return nil
	}
	b := a.As16()
	last := netip.AddrFrom4([4]byte(b[12:16]))
	switch {
	case nat64.Contains(a), nat64Local.Contains(a), compatible.Contains(a), translated.Contains(a):
		return []netip.Addr{last}
	case sixToFour.Contains(a):
		return []netip.Addr{netip.AddrFrom4([4]byte(b[2:6]))}
	case teredo.Contains(a):
		client := [4]byte{^b[12], ^b[13], ^b[14], ^b[15]}
		return []netip.Addr{netip.AddrFrom4([4]byte(b[4:8])), netip.AddrFrom4(client)}
	}
	return nil
}

// nonPublic lists the special-purpose blocks (RFC 6890 and successors) that are not
// reachable on the Internet, besides what netip's predicates cover.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), // shared address space (CGNAT)
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("fec0::/10"), // site-local, deprecated but still routed by some
}

func public(a netip.Addr) bool {
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// control is the net.Dialer Control hook: it runs on the address about to be dialled, after
// DNS, so that a name resolving to a refused address is refused too.
func (g *Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !g.AllowedPort(ap) {
		host, _, _ := net.SplitHostPort(address)
		return fmt.Errorf("%s: %w", host, errRefused)
	}
	return nil
}
