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
	// site is where it is: its link, its router.
	site *site
}

// clientKind says which services a client uses.
type clientKind int

const (
	desktop   clientKind = iota // people: web, mail, DNS, SSH, business applications, ...
	appServer                   // internal applications: databases, caches, APIs
	customer                    // customers on the Internet: the customer portal
)

// site is where clients are: how far from the probe (in the data centre) and how lossy their
// link is, and the router that exports their conversations (Exporters names it).
type site struct {
	// rtt is the median round trip between the probe and a host of the site, in seconds.
	rtt float64
	// loss is the share of TCP segments retransmitted on the site's link.
	loss float64
	// incident reports that the link is the one that drops packets during the incident.
	incident bool
	// exporter is the router's address; in the interface the clients are behind; internal
	// and internet the interfaces towards the data centre's servers and the Internet.
	exporter               netip.Addr
	in, internal, internet uint32
}

// The demo network's sites.
var (
	headOffice = &site{rtt: 0.0004, loss: 0.0002, exporter: hqCore, in: 1, internal: 3, internet: 4}
	lyon       = &site{rtt: 0.012, loss: 0.004, incident: true, exporter: lyonEdge, in: 1, internal: 2, internet: 2}
	porto      = &site{rtt: 0.028, loss: 0.001, exporter: portoEdge, in: 1, internal: 2, internet: 2}
	dataCentre = &site{rtt: 0.0002, loss: 0.0001, exporter: dcCore, in: 1, internal: 2, internet: 3}
	internet   = &site{rtt: 0.045, loss: 0.002, exporter: dcCore, in: 3, internal: 4, internet: 4}
)

// clients returns the monitored network's clients: head office desktops, Wi-Fi laptops (two
// of them on IPv6 only), branch desktops in Lyon and Porto, application servers in the data
// centre and in Lyon, and customers on the Internet. Activity is uneven, as on a real network: a few hosts
// open most conversations.
func clients() []client {
	var cs []client
	for i := range 20 {
		ip := netip.AddrFrom4([4]byte{10, 0, 1, byte(10 + i)})
		cs = append(cs, client{ip: ip, kind: desktop, activity: 1 / float64(1+i%7), site: headOffice})
	}
	for i := range 6 {
		ip := netip.AddrFrom4([4]byte{192, 168, 20, byte(100 + i)})
		cs = append(cs, client{ip: ip, kind: desktop, activity: 0.5, site: headOffice})
	}
	for i := range 2 {
		ip := netip.MustParseAddr(fmt.Sprintf("fd00:20::%x", 0x10+i))
		cs = append(cs, client{ip: ip, kind: desktop, activity: 0.6, site: headOffice})
	}
	for i := range 8 {
		ip := netip.AddrFrom4([4]byte{10, 1, 1, byte(10 + i)})
		cs = append(cs, client{ip: ip, kind: desktop, activity: 0.5, site: lyon})
	}
	for i := range 6 {
		ip := netip.AddrFrom4([4]byte{10, 1, 2, byte(10 + i)})
		cs = append(cs, client{ip: ip, kind: desktop, activity: 0.5, site: porto})
	}
	for i := range 4 {
		ip := netip.AddrFrom4([4]byte{10, 0, 2, byte(10 + i)})
		cs = append(cs, client{ip: ip, kind: appServer, activity: 1.5, site: dataCentre})
	}
	// Lyon's order server works day and night: the branch link always carries traffic.
	cs = append(cs, client{ip: netip.AddrFrom4([4]byte{10, 1, 1, 5}), kind: appServer, activity: 1.5, site: lyon})
	for i := range 8 {
		ip := netip.AddrFrom4([4]byte{203, 0, 113, byte(130 + i)})
		cs = append(cs, client{ip: ip, kind: customer, activity: 1, site: internet})
	}
	for i := range 6 {
		ip := netip.AddrFrom4([4]byte{198, 51, 100, byte(130 + i)})
		cs = append(cs, client{ip: ip, kind: customer, activity: 0.7, site: internet})
	}
	return cs
}

// serverNames are the names clients ask the servers for (TLS SNI, HTTP Host): documentation
// names (RFC 2606), never a real organisation's.
var serverNames = map[netip.Addr]string{
	netip.MustParseAddr("192.0.2.34"):      "www.example.com",
	netip.MustParseAddr("192.0.2.80"):      "news.example.net",
	netip.MustParseAddr("203.0.113.10"):    "cloud.example.com",
	netip.MustParseAddr("203.0.113.11"):    "files.example.com",
	netip.MustParseAddr("198.51.100.20"):   "cdn.example.net",
	netip.MustParseAddr("198.51.100.21"):   "static.example.net",
	netip.MustParseAddr("2001:db8:80::10"): "cloud.example.com",
	netip.MustParseAddr("2001:db8:80::11"): "files.example.com",
	netip.MustParseAddr("203.0.113.40"):    "api.partner.example",
	netip.MustParseAddr("10.0.0.25"):       "mail.corp.example",
	netip.MustParseAddr("fd00::25"):        "mail.corp.example",
	netip.MustParseAddr("10.0.0.50"):       "intranet.corp.example",
	netip.MustParseAddr("10.0.0.51"):       "wiki.corp.example",
	netip.MustParseAddr("10.0.0.70"):       "payroll.corp.example",
	netip.MustParseAddr("10.0.0.71"):       "crm.corp.example",
	netip.MustParseAddr("10.0.0.80"):       "portal.example.org",
}

// internal reports whether a is a server of the monitored network (not on the Internet).
func internal(a netip.Addr) bool { return a.IsPrivate() }

// addrs parses a list of addresses; the lists below are constants, so a bad one is a bug.
func addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, a := range s {
		out[i] = netip.MustParseAddr(a)
	}
	return out
}
