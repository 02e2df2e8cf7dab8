package netctx

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Unknown is the application of a record that no rule, port or probe names.
const Unknown = "unknown"

// Bounds of a set of applications.
const (
	// MaxApplications is the most applications a set holds.
	MaxApplications = 10_000
	// MaxRules is the most rules one application holds, and MaxRuleNetworks the most networks
	// one rule names. A record is not checked against every rule: an index finds its rule
	// (see ruleIndex), at about the same cost with 300 rules or 100,000.
	MaxRules        = 100
	MaxRuleNetworks = 100
)

// Application is one of the operator's applications: a name and the rules that give it.
type Application struct {
	Name  string
	Rules []Rule
}

// Rule names an application for the records that match every condition it sets; a zero field
// sets none.
type Rule struct {
	// Protocol is the IP protocol number (6 TCP, 17 UDP, ...); 0 for any.
	Protocol uint8
	// PortLow and PortHigh bound the server port (both 0 for any port).
	PortLow, PortHigh uint16
	// ServerZone and ClientZone are zones the server or the client is in (or nested in).
	ServerZone, ClientZone string
	// Networks holds the server's address (any of them).
	Networks []netip.Prefix
}

// portProtocols are the protocols whose records have ports: TCP, UDP, SCTP.
func hasPorts(proto uint8) bool { return proto == 0 || proto == 6 || proto == 17 || proto == 132 }

// ParseProtocol reads a rule's protocol: "" (any), "tcp", "udp", "icmp", "icmpv6", "sctp", or
// a number from 1 to 255.
func ParseProtocol(s string) (uint8, error) {
	switch strings.ToLower(s) {
	case "":
		return 0, nil
	case "tcp":
		return 6, nil
	case "udp":
		return 17, nil
	case "icmp":
		return 1, nil
	case "icmpv6":
		return 58, nil
	case "sctp":
		return 132, nil
	}
	n, err := strconv.ParseUint(s, 10, 8)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("protocol %q: want tcp, udp, icmp, icmpv6, sctp or a number from 1 to 255", s)
	}
	return uint8(n), nil
}

// ParsePorts reads a rule's ports: "" (any), "443", or a range "8000-8100".
func ParsePorts(s string) (low, high uint16, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, isRange := strings.Cut(s, "-")
	lo, err1 := strconv.ParseUint(strings.TrimSpace(a), 10, 16)
	hi := lo
	var err2 error
	if isRange {
		hi, err2 = strconv.ParseUint(strings.TrimSpace(b), 10, 16)
	}
	switch {
	case err1 != nil || err2 != nil || lo == 0:
		return 0, 0, fmt.Errorf("ports %q: want a port from 1 to 65535 or a range such as 8000-8100", s)
	case hi < lo:
		return 0, 0, fmt.Errorf("ports %q: the range ends before it starts, so the rule can never match", s)
	}
	return uint16(lo), uint16(hi), nil
}

// Applications is an immutable table of the operator's applications. Its zero value (or nil)
// names nothing. It is safe for concurrent use.
type Applications struct {
	rules []compiled
	idx   ruleIndex
}

type compiled struct {
	Rule
	name        string
	sdepth      uint64 // parts of ServerZone's name; 0 without
	cdepth      uint64
	portScore   uint64 // 0 without ports; narrower ranges score higher
	protocolSet uint64
}

// NewApplications checks apps against zones (the zone set the rules may name) and builds
// their table. It refuses, with an error naming the application and the rule (from 0), a bad
// name, a rule naming a zone that does not exist, a port range on a protocol without ports,
// a network with host bits set, and a rule whose conditions another application's rule sets
// too (which would win is undefined).
func NewApplications(apps []Application, zones *Zones) (*Applications, error) {
	if len(apps) > MaxApplications {
		return nil, fmt.Errorf("more than %d applications", MaxApplications)
	}
	t := &Applications{}
	seen := map[string]string{}
	for i, app := range apps {
		if err := CheckStoredName(app.Name); err != nil {
			return nil, fmt.Errorf("application %q: %w", app.Name, err)
		}
		if slices.ContainsFunc(apps[:i], func(o Application) bool { return o.Name == app.Name }) {
			return nil, fmt.Errorf("application %q: defined twice", app.Name)
		}
		if len(app.Rules) == 0 {
			return nil, fmt.Errorf("application %q: no rule", app.Name)
		}
		if len(app.Rules) > MaxRules {
			return nil, fmt.Errorf("application %q: more than %d rules", app.Name, MaxRules)
		}
		for j, r := range app.Rules {
			c, err := compile(app.Name, r, zones)
			if err != nil {
				return nil, fmt.Errorf("application %q: rule %d: %w", app.Name, j, err)
			}
			key := c.conditions()
			if o, ok := seen[key]; ok {
				return nil, fmt.Errorf("application %q: rule %d: application %q has a rule with the same conditions", app.Name, j, o)
			}
			seen[key] = app.Name
			t.rules = append(t.rules, c)
		}
	}
	t.buildIndex()
	return t, nil
}

func compile(name string, r Rule, zones *Zones) (compiled, error) {
	c := compiled{Rule: r, name: name}
	if (r.PortLow != 0 || r.PortHigh != 0) && !hasPorts(r.Protocol) {
		return c, fmt.Errorf("protocol %d has no ports, so the rule can never match", r.Protocol)
	}
	if r.PortHigh < r.PortLow {
		return c, fmt.Errorf("the port range ends before it starts, so the rule can never match")
	}
	if len(r.Networks) > MaxRuleNetworks {
		return c, fmt.Errorf("more than %d networks", MaxRuleNetworks)
	}
	if err := checkNetworks(r.Networks); err != nil {
		return c, err
	}
	for _, z := range []string{r.ServerZone, r.ClientZone} {
		if z != "" && !zoneExists(zones, z) {
			return c, fmt.Errorf("zone %q does not exist, so the rule can never match", z)
		}
	}
	if r.ServerZone != "" {
		c.sdepth = uint64(strings.Count(r.ServerZone, "/") + 1)
	}
	if r.ClientZone != "" {
		c.cdepth = uint64(strings.Count(r.ClientZone, "/") + 1)
	}
	if r.PortLow != 0 {
		c.portScore = 65537 - uint64(r.PortHigh-r.PortLow+1)
	}
	if r.Protocol != 0 {
		c.protocolSet = 1
	}
	return c, nil
}

// zoneExists reports whether a zone is name or nested in it.
func zoneExists(zones *Zones, name string) bool {
	if zones == nil {
		return false
	}
	return slices.ContainsFunc(zones.names, func(z string) bool { return InZone(z, name) })
}

// conditions is a rule's conditions as text, to find two rules with the same ones.
func (c *compiled) conditions() string {
	nets := make([]string, len(c.Networks))
	for i, p := range c.Networks {
		nets[i] = p.String()
	}
	slices.Sort(nets)
	return fmt.Sprintf("%d|%d-%d|%s|%s|%s", c.Protocol, c.PortLow, c.PortHigh, c.ServerZone, c.ClientZone, strings.Join(nets, ","))
}

// Match returns the name of the application of the most specific rule f matches (with the
// zones already found for its server and client), or "" when none matches. A rule is more
// specific than another by, in this order: the longer of its networks holding the server
// (any network beats none); the deeper server zone, then client zone (more parts of the name;
// any beats none); the narrower port range (any range beats none); a protocol (beats none).
// Between rules equal on all of these, the first given wins.
func (t *Applications) Match(f *Flow, serverZone, clientZone string) string {
	if t == nil || len(t.rules) == 0 {
		return ""
	}
	if len(t.idx.zones) != 0 {
		return t.matchZoned(f, serverZone, clientZone)
	}
	if i := t.lookup(f, noZone, noZone); i >= 0 {
		return t.rules[i].name
	}
	return ""
}

// noZone is the zones of a record when no rule names a zone: none.
var noZone = []int32{0}

// matchZoned is Match when rules name zones.
func (t *Applications) matchZoned(f *Flow, serverZone, clientZone string) string {
	var sz, cz [maxZoneDepth + 1]int32
	ns, nc := t.idx.ancestors(serverZone, &sz), t.idx.ancestors(clientZone, &cz)
	if i := t.lookup(f, sz[:ns], cz[:nc]); i >= 0 {
		return t.rules[i].name
	}
	return ""
}

// scan is Match by checking every rule: what the index must answer (the tests compare them).
func (t *Applications) scan(f *Flow, serverZone, clientZone string) string {
	if t == nil {
		return ""
	}
	best, bestScore := -1, uint64(0)
	for i := range t.rules {
		r := &t.rules[i]
		if r.Protocol != 0 && r.Protocol != f.Protocol {
			continue
		}
		if r.PortLow != 0 && (f.ServerPort < r.PortLow || f.ServerPort > r.PortHigh) {
			continue
		}
		if r.ServerZone != "" && !InZone(serverZone, r.ServerZone) {
			continue
		}
		if r.ClientZone != "" && !InZone(clientZone, r.ClientZone) {
			continue
		}
		netScore := uint64(0)
		if len(r.Networks) > 0 {
			ln := -1
			for _, p := range r.Networks {
				if p.Bits() > ln && p.Contains(f.Server.Unmap()) {
					ln = p.Bits()
				}
			}
			if ln < 0 {
				continue
			}
			netScore = uint64(ln) + 1
		}
		score := netScore<<48 | r.sdepth<<40 | r.cdepth<<32 | r.portScore<<1 | r.protocolSet
		if best < 0 || score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return ""
	}
	return t.rules[best].name
}
