package netctx

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/fnapi/fnapi/label"
)

// Other is the zone of an address outside every zone.
const Other = "other"

// Bounds of a zone set, so that an administrator's mistake cannot make lookups slow or the
// table huge.
const (
	// MaxZones is the most zones a set holds.
	MaxZones = 10_000
	// MaxNetworks is the most networks one zone holds.
	MaxNetworks = 10_000
	// MaxNameLength is the longest zone or application name, in bytes.
	MaxNameLength = 200
)

// Zone is a named set of networks. Names nest by "/": "Customers/ACME" is inside
// "Customers".
type Zone struct {
	Name     string
	Networks []netip.Prefix
}

// Zones is an immutable table of zones answering, for an address, the zone of the most
// specific network holding it. Its zero value holds no zone. It is safe for concurrent use.
type Zones struct {
	names []string
	v4    trie
	v6    trie
	r4    *ranges4 // v4 flattened, for lookups
}

// NewZones checks zones and builds their table. It refuses a bad name, a network with host
// bits set, and a network in two zones (or twice in one), with an error naming the zone and
// the network.
func NewZones(zones []Zone) (*Zones, error) {
	if len(zones) > MaxZones {
		return nil, fmt.Errorf("more than %d zones", MaxZones)
	}
	t := &Zones{}
	owner := map[netip.Prefix]string{}
	for i, z := range zones {
		if err := CheckStoredName(z.Name); err != nil {
			return nil, fmt.Errorf("zone %q: %w", z.Name, err)
		}
		if slices.ContainsFunc(zones[:i], func(o Zone) bool { return o.Name == z.Name }) {
			return nil, fmt.Errorf("zone %q: defined twice", z.Name)
		}
		if err := checkNetworks(z.Networks); err != nil {
			return nil, fmt.Errorf("zone %q: %w", z.Name, err)
		}
		t.names = append(t.names, z.Name)
		for _, p := range z.Networks {
			if o, ok := owner[p]; ok {
				if o == z.Name {
					return nil, fmt.Errorf("zone %q: network %s listed twice", z.Name, p)
				}
				return nil, fmt.Errorf("network %s is in zones %q and %q: a network belongs to one zone", p, o, z.Name)
			}
			owner[p] = z.Name
			t.insert(p, int32(i))
		}
	}
	t.r4 = t.v4.ranges()
	return t, nil
}

// checkNetworks refuses too many networks, or a network with host bits set.
func checkNetworks(ps []netip.Prefix) error {
	if len(ps) > MaxNetworks {
		return fmt.Errorf("more than %d networks", MaxNetworks)
	}
	for _, p := range ps {
		if !p.IsValid() {
			return fmt.Errorf("network %s is not valid", p)
		}
		if p.Masked() != p {
			return fmt.Errorf("network %s has host bits set (the network is %s)", p, p.Masked())
		}
	}
	return nil
}

// CheckName returns why name cannot be given to a new zone or application, or nil: it must
// be 1 to MaxNameLength bytes that package label accepts as a name (valid UTF-8, no control
// character, C1 included, no bidirectional formatting character, something visible), without
// markup characters (< and >), and pass CheckStoredName.
func CheckName(name string) error {
	if name != "" && len(name) <= MaxNameLength {
		if reason := label.Check(name); reason != "" {
			return fmt.Errorf("the name %s", reason)
		}
	}
	if err := CheckStoredName(name); err != nil {
		return err
	}
	if i := strings.IndexAny(name, "<>"); i >= 0 {
		return fmt.Errorf("the name holds %q at byte %d: no markup character (< or >)", name[i], i)
	}
	return nil
}

// CheckStoredName is the part of CheckName that the tables themselves rely on: 1 to
// MaxNameLength bytes, no C0 control character, quote or backslash, its "/"-separated parts
// non-empty, without leading or trailing spaces, and not "other" nor "unknown". Names stored
// before CheckName grew stricter still load (a service that refused its own stored zones
// would not start); they are refused only when given again.
func CheckStoredName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("the name is empty")
	case len(name) > MaxNameLength:
		return fmt.Errorf("the name is longer than %d bytes", MaxNameLength)
	case name == Other || name == Unknown:
		return fmt.Errorf("%q is reserved", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || strings.TrimSpace(part) != part {
			return fmt.Errorf("each part between slashes must be non-empty, without leading or trailing spaces")
		}
	}
	for i, r := range name {
		if r < 0x20 || r == 0x7f || r == '"' || r == '\\' {
			return fmt.Errorf("the name holds %q at byte %d: no control character, quote or backslash", r, i)
		}
	}
	return nil
}

// InZone reports whether the zone named zone is name or nested under it ("Customers/ACME" is
// in "Customers"; "CustomersX" is not).
func InZone(zone, name string) bool {
	return zone == name || (len(zone) > len(name) && zone[len(name)] == '/' && zone[:len(name)] == name)
}

// Lookup returns the zone of the most specific network holding a, or Other.
func (t *Zones) Lookup(a netip.Addr) string {
	if t == nil {
		return Other
	}
	var i int32
	if a.Is4() || a.Is4In6() {
		b := a.Unmap().As4()
		if t.r4 == nil {
			return Other
		}
		i = t.r4.lookup(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))
	} else {
		b := a.As16()
		i = t.v6.lookup(be64(b[:8]), be64(b[8:]), 128)
	}
	if i < 0 {
		return Other
	}
	return t.names[i]
}

// Names returns the zones' names in the order given to NewZones.
func (t *Zones) Names() []string {
	if t == nil {
		return nil
	}
	return slices.Clone(t.names)
}

func (t *Zones) insert(p netip.Prefix, zone int32) {
	a := p.Addr()
	if a.Is4() {
		b := a.As4()
		t.v4.insert(uint64(b[0])<<56|uint64(b[1])<<48|uint64(b[2])<<40|uint64(b[3])<<32, 0, p.Bits(), zone)
		return
	}
	b := a.As16()
	t.v6.insert(be64(b[:8]), be64(b[8:]), p.Bits(), zone)
}

func be64(b []byte) uint64 {
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}
