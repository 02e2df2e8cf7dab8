package netctx

import (
	"net/netip"
	"slices"
)

// ruleIndex finds the most specific rule a record matches without scanning the rules, so that
// a lookup costs about the same with 10 rules or a million. Rules naming networks are found
// through a trie of their networks (a longer network holding the server wins over any other
// condition, so the longest prefix with a matching rule decides); the others, and the rules at
// one network, are grouped by server zone, client zone and protocol: the rules of one group
// differ by their ports only, so each group keeps, for each segment of ports, the rule that
// wins there (the narrowest range, then the first given).
type ruleIndex struct {
	plain  ruleSet // rules without networks
	v4, v6 trie    // rules' networks; a node's value indexes nets
	nets   []ruleSet
	zones  map[string]int32 // the zones rules name, numbered from 1 (0 is none)
}

// ruleSet is the groups of some rules: those without zones by protocol (0 any), the others by
// zones and protocol.
type ruleSet struct {
	byProto []protoGroup
	zoned   map[groupKey]*portIndex
}

type protoGroup struct {
	protocol uint8
	ports    *portIndex
}

type groupKey struct {
	server, client int32 // zone numbers, 0 for none
	protocol       uint8
}

// portIndex is the winning rule of each segment of server ports: segment i holds the ports
// from starts[i] (starts[0] is 0) to the next start; best[i] is its rule, or -1.
type portIndex struct {
	starts []uint16
	best   []int32
}

// maxZoneDepth bounds the parts of a zone name (MaxNameLength bytes hold at most 100).
const maxZoneDepth = MaxNameLength/2 + 1

// buildIndex indexes t.rules.
func (t *Applications) buildIndex() {
	x := &t.idx
	x.zones = map[string]int32{}
	zoneID := func(z string) int32 {
		if z == "" {
			return 0
		}
		id, ok := x.zones[z]
		if !ok {
			id = int32(len(x.zones) + 1)
			x.zones[z] = id
		}
		return id
	}
	plain := map[groupKey][]int32{}
	var nets []map[groupKey][]int32
	netOf := map[netip.Prefix]int32{}
	for i := range t.rules {
		r := &t.rules[i]
		k := groupKey{server: zoneID(r.ServerZone), client: zoneID(r.ClientZone), protocol: r.Protocol}
		if len(r.Networks) == 0 {
			plain[k] = append(plain[k], int32(i))
			continue
		}
		for _, p := range r.Networks {
			n, ok := netOf[p]
			if !ok {
				n = int32(len(nets))
				netOf[p] = n
				nets = append(nets, map[groupKey][]int32{})
				insertPrefix(&x.v4, &x.v6, p, n)
			}
			if g := nets[n][k]; len(g) == 0 || g[len(g)-1] != int32(i) { // a network listed twice
				nets[n][k] = append(g, int32(i))
			}
		}
	}
	x.plain = t.ruleSet(plain)
	x.nets = make([]ruleSet, len(nets))
	for i, g := range nets {
		x.nets[i] = t.ruleSet(g)
	}
}

// insertPrefix inserts p into the trie of its family.
func insertPrefix(v4, v6 *trie, p netip.Prefix, value int32) {
	a := p.Addr()
	if a.Is4() {
		b := a.As4()
		v4.insert(uint64(b[0])<<56|uint64(b[1])<<48|uint64(b[2])<<40|uint64(b[3])<<32, 0, p.Bits(), value)
		return
	}
	b := a.As16()
	v6.insert(be64(b[:8]), be64(b[8:]), p.Bits(), value)
}

func (t *Applications) ruleSet(groups map[groupKey][]int32) ruleSet {
	var s ruleSet
	for k, rules := range groups {
		p := t.portIndex(rules)
		if k.server == 0 && k.client == 0 {
			s.byProto = append(s.byProto, protoGroup{k.protocol, p})
			continue
		}
		if s.zoned == nil {
			s.zoned = map[groupKey]*portIndex{}
		}
		s.zoned[k] = p
	}
	return s
}

// portIndex finds, for each segment of ports, the rule of rules (in the order given) that
// wins there: rules are painted from the narrowest range (no ports last), each segment taking
// the first rule that covers it.
func (t *Applications) portIndex(rules []int32) *portIndex {
	bounds := []int{0}
	for _, i := range rules {
		if r := &t.rules[i]; r.PortLow != 0 {
			bounds = append(bounds, int(r.PortLow), int(r.PortHigh)+1)
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	if bounds[len(bounds)-1] > 65535 {
		bounds = bounds[:len(bounds)-1]
	}
	starts := make([]uint16, len(bounds))
	for i, b := range bounds {
		starts[i] = uint16(b)
	}
	width := func(i int32) int {
		if r := &t.rules[i]; r.PortLow != 0 {
			return int(r.PortHigh - r.PortLow)
		}
		return 65536
	}
	order := slices.Clone(rules)
	slices.SortStableFunc(order, func(a, b int32) int { return width(a) - width(b) })
	best := make([]int32, len(starts))
	next := make([]int32, len(starts)+1) // next[j]: a segment from j on that may be unpainted
	for j := range best {
		best[j], next[j] = -1, int32(j)
	}
	next[len(starts)] = int32(len(starts))
	find := func(j int32) int32 {
		for next[j] != j {
			next[j] = next[next[j]]
			j = next[j]
		}
		return j
	}
	for _, i := range order {
		r := &t.rules[i]
		first, last := int32(0), int32(len(starts)-1)
		if r.PortLow != 0 {
			f, _ := slices.BinarySearch(starts, r.PortLow)
			first = int32(f)
			if r.PortHigh < 65535 {
				l, _ := slices.BinarySearch(starts, r.PortHigh+1)
				last = int32(l) - 1
			}
		}
		for j := find(first); j <= last; j = find(j) {
			best[j], next[j] = i, j+1
		}
	}
	return &portIndex{starts: starts, best: best}
}

// at returns the rule winning port, or -1.
func (p *portIndex) at(port uint16) int32 {
	lo, hi := 0, len(p.starts)
	for lo < hi { // the first segment starting after port; the one before holds it
		m := int(uint(lo+hi) >> 1)
		if p.starts[m] <= port {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return p.best[lo-1]
}

// ancestors fills ids with the numbers of the zones rules name that zone is in (itself
// included), after 0 (none), and returns how many.
func (x *ruleIndex) ancestors(zone string, ids *[maxZoneDepth + 1]int32) int {
	ids[0] = 0
	n := 1
	for i := 1; i <= len(zone) && n < len(ids); i++ {
		if i == len(zone) || zone[i] == '/' {
			if id, ok := x.zones[zone[:i]]; ok {
				ids[n] = id
				n++
			}
		}
	}
	return n
}

// lookup returns the most specific rule f matches (its zones' numbers given), or -1.
func (t *Applications) lookup(f *Flow, sz, cz []int32) int32 {
	x := &t.idx
	if len(x.nets) > 0 {
		var path [129]int32
		n := 0
		if a := f.Server.Unmap(); a.Is4() {
			b := a.As4()
			n = x.v4.path(uint64(b[0])<<56|uint64(b[1])<<48|uint64(b[2])<<40|uint64(b[3])<<32, 0, 32, &path)
		} else if a.Is6() {
			b := a.As16()
			n = x.v6.path(be64(b[:8]), be64(b[8:]), 128, &path)
		}
		for k := n - 1; k >= 0; k-- { // the longest network first
			if i := t.best(&x.nets[path[k]], f, sz, cz); i >= 0 {
				return i
			}
		}
	}
	return t.best(&x.plain, f, sz, cz)
}

// best returns the most specific of s's rules that f matches, or -1: each group's rule at
// the port, the most specific of them.
func (t *Applications) best(s *ruleSet, f *Flow, sz, cz []int32) int32 {
	best, score := int32(-1), uint64(0)
	for _, g := range s.byProto {
		if g.protocol == 0 || g.protocol == f.Protocol {
			best, score = t.better(g.ports, f.ServerPort, best, score)
		}
	}
	if s.zoned == nil {
		return best
	}
	for _, si := range sz {
		for _, ci := range cz {
			if si == 0 && ci == 0 {
				continue
			}
			if p := s.zoned[groupKey{si, ci, f.Protocol}]; p != nil {
				best, score = t.better(p, f.ServerPort, best, score)
			}
			if f.Protocol != 0 {
				if p := s.zoned[groupKey{si, ci, 0}]; p != nil {
					best, score = t.better(p, f.ServerPort, best, score)
				}
			}
		}
	}
	return best
}

// better returns p's rule at port and its score when it is more specific than best (of
// score), else best: a rule is more specific by its zones' depths, then the narrower port
// range, then a protocol, then by coming first.
func (t *Applications) better(p *portIndex, port uint16, best int32, score uint64) (int32, uint64) {
	i := p.at(port)
	if i < 0 {
		return best, score
	}
	r := &t.rules[i]
	s := r.sdepth<<40 | r.cdepth<<32 | r.portScore<<1 | r.protocolSet
	if best < 0 || s > score || s == score && i < best {
		return i, s
	}
	return best, score
}
