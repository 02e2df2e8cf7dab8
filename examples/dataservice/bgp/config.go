package bgp

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// Defaults of Config's bounds (docs/bgp.md, the Limits table of docs/security.md).
const (
	// DefaultHoldTime is the hold time the speaker offers (RFC 4271's suggested 90 s); a
	// session is the smaller of both sides'.
	DefaultHoldTime = 90 * time.Second
	// DefaultMaxPrefixes is the routes (IPv4 and IPv6 together) one router may send: two full
	// tables of about 1.2M routes each, with room to spare. Past it the session is reset.
	DefaultMaxPrefixes = 2_500_000
	// DefaultMaxAttrBytes is the bytes the distinct AS paths and communities one router sent
	// first may take in the table (each set once, ~230 bytes for a path of 3 ASes and a
	// community): ~2M such sets, where a full table has a few hundred thousand. Past it the
	// session is reset.
	DefaultMaxAttrBytes = 512 << 20
	// DefaultMaxRouters is the routers (addresses of -bgp-peers whose session got as far as a
	// valid OPEN) the speaker keeps a table and a status for.
	DefaultMaxRouters = 1024
	// DefaultRestartTime bounds how long a router that restarts gracefully (RFC 4724, the
	// speaker a receiver only) keeps its routes, marked stale, until it is back and sends
	// End-of-RIB; the router's own restart time when it is shorter.
	DefaultRestartTime = 120 * time.Second
)

// Config is the speaker's configuration; its zero values are the defaults above.
type Config struct {
	// Listen is the address sessions are accepted on (-bgp), host:port; port 179 when absent.
	Listen string
	// AS is the service's AS number (-bgp-as).
	AS uint32
	// Peers are the prefixes routers may connect from (-bgp-peers); a connection from any
	// other address is refused.
	Peers []netip.Prefix
	// RouterID is the BGP identifier: the listen address when it is a specific IPv4 address,
	// else 192.0.2.179 (the identifier is only required to differ from each router's own).
	RouterID netip.Addr
	// HoldTime is offered to routers; DefaultHoldTime when 0.
	HoldTime time.Duration
	// MaxPrefixes is each router's bound on the routes it sends; DefaultMaxPrefixes when 0.
	MaxPrefixes int
	// MaxAttrBytes is each router's bound on the bytes of the distinct AS paths and
	// communities it sends; DefaultMaxAttrBytes when 0.
	MaxAttrBytes int
	// MaxRouters bounds the routers the speaker knows, the addresses whose session got as far
	// as a valid OPEN. Once it has as many, a new router takes the place of the one idle the
	// longest without routes (nor stale ones); when every router has a session or routes, a
	// connection from another address is closed at once. DefaultMaxRouters when 0.
	MaxRouters int
	// RestartTime bounds a gracefully restarting router's stale routes; DefaultRestartTime
	// when 0.
	RestartTime time.Duration
	// Nexthop4 and Nexthop6 are the next hops of blackhole routes (the configuration key
	// blackhole_nexthop): 192.0.2.1 and 100::1 when unset, addresses routers map to a discard
	// route (RFC 5737, RFC 6666).
	Nexthop4, Nexthop6 netip.Addr
}

// ParsePeers reads -bgp-peers: prefixes or addresses separated by commas.
func ParsePeers(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if a, err := netip.ParseAddr(f); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("bgp: -bgp-peers: %q is neither a prefix nor an address", f)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// withDefaults checks the configuration and fills its defaults.
func (c Config) withDefaults() (Config, error) {
	if c.AS == 0 {
		return c, errors.New("bgp: -bgp-as is required with -bgp")
	}
	if len(c.Peers) == 0 {
		return c, errors.New("bgp: -bgp-peers is required with -bgp (the routers that may connect)")
	}
	host, port := c.Listen, "179"
	if h, p, err := net.SplitHostPort(c.Listen); err == nil {
		host, port = h, p
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return c, fmt.Errorf("bgp: -bgp %q: bad port", c.Listen)
	}
	if host != "" {
		if _, err := netip.ParseAddr(host); err != nil {
			return c, fmt.Errorf("bgp: -bgp %q: the host must be an IP address", c.Listen)
		}
	}
	c.Listen = net.JoinHostPort(host, port)
	if !c.RouterID.IsValid() {
		c.RouterID = netip.MustParseAddr("192.0.2.179")
		if a, err := netip.ParseAddr(host); err == nil && a.Is4() && !a.IsUnspecified() {
			c.RouterID = a
		}
	}
	if c.HoldTime <= 0 {
		c.HoldTime = DefaultHoldTime
	}
	if c.MaxPrefixes <= 0 {
		c.MaxPrefixes = DefaultMaxPrefixes
	}
	if c.MaxAttrBytes <= 0 {
		c.MaxAttrBytes = DefaultMaxAttrBytes
	}
	if c.MaxRouters <= 0 {
		c.MaxRouters = DefaultMaxRouters
	}
	if c.RestartTime <= 0 {
		c.RestartTime = DefaultRestartTime
	}
	if !c.Nexthop4.IsValid() {
		c.Nexthop4 = netip.MustParseAddr("192.0.2.1")
	}
	if !c.Nexthop6.IsValid() {
		c.Nexthop6 = netip.MustParseAddr("100::1")
	}
	return c, nil
}
