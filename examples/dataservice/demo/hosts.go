package demo

import (
	"fmt"
	"net/netip"
)

// client is a host that opens conversations.
type client struct {
	ip netip.Addr
	// kind is the services it uses.
	kind clientKind
	// activity weighs how often it opens conversations compared with the others.
	activity float64
}

// clientKind says which services a client uses.
type clientKind int

const (
	desktop   clientKind = iota // people: web, mail, DNS, SSH, ...
	appServer                   // internal applications: databases, caches, APIs
)

// clients returns the monitored network's clients: office desktops, Wi-Fi laptops (two of them
// on IPv6 only) and application servers. Activity is uneven, as on a real network: a few hosts
// open most conversations.
func clients() []client {
	var cs []client
	for i := range 20 {
		ip := netip.AddrFrom4([4]byte{10, 0, 1, byte(10 + i)})
		cs = append(cs, client{ip: ip, kind: desktop, activity: 1 / float64(1+i%7)})
	}
	for i := range 6 {
		ip := netip.AddrFrom4([4]byte{192, 168, 20, byte(100 + i)})
		cs = append(cs, client{ip: ip, kind: desktop, activity: 0.5})
	}
	for i := range 2 {
		ip := netip.MustParseAddr(fmt.Sprintf("fd00:20::%x", 0x10+i))
		cs = append(cs, client{ip: ip, kind: desktop, activity: 0.6})
	}
	for i := range 4 {
		ip := netip.AddrFrom4([4]byte{10, 0, 2, byte(10 + i)})
		cs = append(cs, client{ip: ip, kind: appServer, activity: 1.5})
	}
	return cs
}

// addrs parses a list of addresses; the lists below are constants, so a bad one is a bug.
func addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, a := range s {
		out[i] = netip.MustParseAddr(a)
	}
	return out
}
