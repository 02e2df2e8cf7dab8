package manage

import (
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"slices"

	"github.com/fnapi/fnapi/examples/dataservice/netctx"
)

// MaxMitigationZones is the most zones mitigation_zones names.
const MaxMitigationZones = 100

// DefaultBlackholeNexthop is blackhole_nexthop's default: the discard addresses (RFC 5737's
// TEST-NET-1 and RFC 6666's discard prefix) that routers map to a null route.
const DefaultBlackholeNexthop = `["192.0.2.1","100::1"]`

func mitigationZonesKey() Key {
	return Key{Name: KeyMitigationZones, JSON: true, Default: `[]`,
		Description: `zones whose addresses alert rules' bgp channels may announce (and the zones nested in them): ` +
			`["Customers", "DC/Web"]; none (the default): nothing is announced`,
		check: func(raw json.RawMessage) string {
			if _, err := parseMitigationZones(raw); err != nil {
				return err.Error()
			}
			return ""
		},
	}
}

func blackholeNexthopKey() Key {
	return Key{Name: KeyBlackholeNexthop, JSON: true, Default: DefaultBlackholeNexthop,
		Description: `next hops of the blackhole routes alert rules announce, one IPv4 and one IPv6 address at most, ` +
			`never the service's own (routers refuse it): ["192.0.2.1", "100::1"], discard addresses routers map to a null route`,
		check: func(raw json.RawMessage) string {
			if _, err := parseBlackholeNexthop(raw); err != nil {
				return err.Error()
			}
			return ""
		},
	}
}

// ParseMitigationZones reads mitigation_zones (Config.MitigationZones; "" for the default,
// none).
func ParseMitigationZones(value string) ([]string, error) {
	if value == "" {
		return nil, nil
	}
	return parseMitigationZones(json.RawMessage(value))
}

func parseMitigationZones(raw json.RawMessage) ([]string, error) {
	var zs []string
	if err := strict(raw, &zs); err != nil {
		return nil, fmt.Errorf(`want a list of zone names, ["Customers", "DC/Web"]: %v`, err)
	}
	if len(zs) > MaxMitigationZones {
		return nil, fmt.Errorf("at most %d zones", MaxMitigationZones)
	}
	for i, z := range zs {
		if err := netctx.CheckStoredName(z); err != nil {
			return nil, fmt.Errorf("[%d]: %v", i, err)
		}
		if slices.Contains(zs[:i], z) {
			return nil, fmt.Errorf("[%d]: %q listed twice", i, z)
		}
	}
	return zs, nil
}

// ParseBlackholeNexthop reads blackhole_nexthop (Config.BlackholeNexthop; "" for the default).
func ParseBlackholeNexthop(value string) ([]netip.Addr, error) {
	if value == "" {
		value = DefaultBlackholeNexthop
	}
	return parseBlackholeNexthop(json.RawMessage(value))
}

func parseBlackholeNexthop(raw json.RawMessage) ([]netip.Addr, error) {
	var ss []string
	if err := strict(raw, &ss); err != nil {
		return nil, fmt.Errorf(`want one IPv4 and one IPv6 address at most, ["192.0.2.1", "100::1"]: %v`, err)
	}
	var out []netip.Addr
	for i, s := range ss {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("[%d]: %q is not an IP address", i, s)
		}
		a = a.Unmap()
		switch {
		case slices.ContainsFunc(out, func(o netip.Addr) bool { return o.Is4() == a.Is4() }):
			return nil, fmt.Errorf("[%d]: one address of each family at most", i)
		case a.IsUnspecified() || a.IsLoopback() || a.IsMulticast() || a.IsLinkLocalUnicast() || own(a):
			return nil, fmt.Errorf("[%d]: %s is the service's own, unspecified, loopback, multicast or link-local: routers refuse it as a next hop", i, a)
		}
		out = append(out, a)
	}
	return out, nil
}

// own reports whether a is an address of the host's interfaces.
func own(a netip.Addr) bool {
	addrs, _ := net.InterfaceAddrs()
	for _, x := range addrs {
		if p, err := netip.ParsePrefix(x.String()); err == nil && p.Addr().Unmap() == a {
			return true
		}
	}
	return false
}
