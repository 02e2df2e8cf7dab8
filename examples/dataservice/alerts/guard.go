package alerts

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
)

// Guard decides which addresses webhooks may reach: public addresses, and those Allow
// holds. The zero value allows public addresses only.
type Guard struct {
	// Allow lists the prefixes allowed besides public addresses (the -webhook-allow flag).
	Allow []netip.Prefix
	// Own lists the service's own addresses, refused unless Allow holds them. Default: none
	// but what is never public (loopback); NewGuard fills it from the host's interfaces.
	Own []netip.Addr
}

// NewGuard returns a Guard allowing allow besides public addresses, and refusing the
// addresses of the host's interfaces.
func NewGuard(allow []netip.Prefix) *Guard {
	g := &Guard{Allow: allow}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil {
				g.Own = append(g.Own, p.Addr())
			}
		}
	}
	return g
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
var errRefused = errors.New("address not allowed for webhooks (not public; see -webhook-allow)")

// Allowed reports whether a webhook may reach a.
func (g *Guard) Allowed(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range g.Allow {
		if p.Contains(a) {
			return true
		}
	}
	for _, o := range g.Own {
		if o.Unmap() == a {
			return false
		}
	}
	return public(a)
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
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2001::/23"),
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
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	a, err := netip.ParseAddr(host)
	if err != nil || !g.Allowed(a) {
		return fmt.Errorf("%s: %w", host, errRefused)
	}
	return nil
}
