package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// announcement is a Mitigation's route: its family, NLRI and attributes (the AS path, which
// depends on the router, aside).
type announcement struct {
	family gobgp.Family
	nlri   gobgp.NLRI
	attrs  []gobgp.PathAttributeInterface
}

// Announce sends m to every router with a session, and to routers that connect later, until
// Withdraw: a blackhole route (the prefix, next hop m.NextHop, else Config.Nexthop4 or
// Nexthop6, communities BLACKHOLE 65535:666 of RFC 7999 and NO_EXPORT) or a flowspec rule
// (RFC 8955: the destination, the protocol and port when set, action traffic-rate 0).
// Announcing m twice is announcing it once.
func (s *Speaker) Announce(ctx context.Context, m Mitigation) error {
	if s.ln == nil {
		return errNotStarted
	}
	s.amu.Lock()
	defer s.amu.Unlock()
	if _, ok := s.announced[m]; ok {
		return nil
	}
	a, err := s.path(m)
	if err != nil {
		return err
	}
	for ss := range s.peers {
		if msg := ss.encode(a, false); msg != nil {
			ss.queue(msg)
		}
	}
	s.announced[m] = a
	s.log.Info("bgp: announced", "prefix", m.Prefix, "flowspec", m.Flowspec, "protocol", m.Protocol, "port", m.Port)
	return nil
}

// Withdraw withdraws m from every router; withdrawing what is not announced does nothing.
func (s *Speaker) Withdraw(ctx context.Context, m Mitigation) error {
	if s.ln == nil {
		return errNotStarted
	}
	s.amu.Lock()
	defer s.amu.Unlock()
	a, ok := s.announced[m]
	if !ok {
		return nil
	}
	for ss := range s.peers {
		if msg := ss.encode(a, true); msg != nil {
			ss.queue(msg)
		}
	}
	delete(s.announced, m)
	s.log.Info("bgp: withdrawn", "prefix", m.Prefix, "flowspec", m.Flowspec, "protocol", m.Protocol, "port", m.Port)
	return nil
}

// encode is the UPDATE that announces a to ss's router, or withdraws it; nil when the router
// does not have a's family. The AS path is the service's AS to an external router, empty to
// an internal one (with LOCAL_PREF 100), as RFC 4271 §5.1.2 has it.
func (ss *session) encode(a *announcement, withdraw bool) []byte {
	if _, ok := ss.families[a.family]; !ok {
		return nil
	}
	var m *gobgp.BGPMessage
	switch {
	case withdraw && a.family == gobgp.RF_IPv4_UC:
		m = gobgp.NewBGPUpdateMessage([]gobgp.PathNLRI{{NLRI: a.nlri}}, nil, nil)
	case withdraw:
		un, err := gobgp.NewPathAttributeMpUnreachNLRI(a.family, []gobgp.PathNLRI{{NLRI: a.nlri}})
		if err != nil {
			return nil
		}
		m = gobgp.NewBGPUpdateMessage(nil, []gobgp.PathAttributeInterface{un}, nil)
	default:
		as := ss.s.cfg.AS
		var path []gobgp.AsPathParamInterface
		attrs := append([]gobgp.PathAttributeInterface(nil), a.attrs...)
		switch {
		case ss.ibgp:
			attrs = append(attrs, gobgp.NewPathAttributeLocalPref(100))
		case ss.as4:
			path = []gobgp.AsPathParamInterface{gobgp.NewAs4PathParam(gobgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{as})}
		case as > 0xffff:
			path = []gobgp.AsPathParamInterface{gobgp.NewAsPathParam(gobgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint16{gobgp.AS_TRANS})}
			attrs = append(attrs, gobgp.NewPathAttributeAs4Path([]*gobgp.As4PathParam{gobgp.NewAs4PathParam(gobgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{as})}))
		default:
			path = []gobgp.AsPathParamInterface{gobgp.NewAsPathParam(gobgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint16{uint16(as)})}
		}
		attrs = append(attrs, gobgp.NewPathAttributeAsPath(path))
		slices.SortFunc(attrs, func(x, y gobgp.PathAttributeInterface) int { return int(x.GetType()) - int(y.GetType()) })
		var nlri []gobgp.PathNLRI
		if a.family == gobgp.RF_IPv4_UC {
			nlri = []gobgp.PathNLRI{{NLRI: a.nlri}}
		}
		m = gobgp.NewBGPUpdateMessage(nil, attrs, nlri)
	}
	b, err := m.Serialize(ss.opt)
	if err != nil {
		ss.s.log.Warn("bgp: an announcement cannot be encoded", "router", ss.addr, "error", err)
		return nil
	}
	return b
}

// path is the route that announces m. Under s.amu.
func (s *Speaker) path(m Mitigation) (*announcement, error) {
	if !m.Prefix.IsValid() {
		return nil, fmt.Errorf("bgp: mitigation of an invalid prefix")
	}
	prefix := m.Prefix.Masked()
	prefix = netip.PrefixFrom(prefix.Addr().Unmap(), prefix.Bits())
	dst, err := gobgp.NewIPAddrPrefix(prefix)
	if err != nil {
		return nil, fmt.Errorf("bgp: mitigation of %s: %w", m.Prefix, err)
	}
	v6 := prefix.Addr().Is6()
	attrs := []gobgp.PathAttributeInterface{gobgp.NewPathAttributeOrigin(gobgp.BGP_ORIGIN_ATTR_TYPE_IGP)}
	if !m.Flowspec {
		fam, nh := gobgp.RF_IPv4_UC, s.cfg.Nexthop4
		if v6 {
			fam, nh = gobgp.RF_IPv6_UC, s.cfg.Nexthop6
		}
		if m.NextHop.IsValid() && m.NextHop.Is6() == v6 { // blackhole_nexthop, as alerts pass it
			nh = m.NextHop
		}
		if v6 {
			mp, err := gobgp.NewPathAttributeMpReachNLRI(fam, []gobgp.PathNLRI{{NLRI: dst}}, nh)
			if err != nil {
				return nil, fmt.Errorf("bgp: mitigation of %s: %w", m.Prefix, err)
			}
			attrs = append(attrs, mp)
		} else {
			a, err := gobgp.NewPathAttributeNextHop(nh)
			if err != nil {
				return nil, fmt.Errorf("bgp: mitigation of %s: %w", m.Prefix, err)
			}
			attrs = append(attrs, a)
		}
		attrs = append(attrs, gobgp.NewPathAttributeCommunities([]uint32{uint32(gobgp.COMMUNITY_BLACKHOLE), uint32(gobgp.COMMUNITY_NO_EXPORT)}))
		return &announcement{family: fam, nlri: dst, attrs: attrs}, nil
	}
	fam := gobgp.RF_FS_IPv4_UC
	var comps []gobgp.FlowSpecComponentInterface
	if v6 {
		fam = gobgp.RF_FS_IPv6_UC
		comps = append(comps, gobgp.NewFlowSpecDestinationPrefix6(dst, 0))
	} else {
		comps = append(comps, gobgp.NewFlowSpecDestinationPrefix(dst))
	}
	eq := uint8(gobgp.DEC_NUM_OP_EQ | gobgp.DEC_NUM_OP_END)
	if m.Protocol != 0 {
		comps = append(comps, gobgp.NewFlowSpecComponent(gobgp.FLOW_SPEC_TYPE_IP_PROTO, []*gobgp.FlowSpecComponentItem{gobgp.NewFlowSpecComponentItem(eq, uint64(m.Protocol))}))
	}
	if m.Port != 0 {
		comps = append(comps, gobgp.NewFlowSpecComponent(gobgp.FLOW_SPEC_TYPE_DST_PORT, []*gobgp.FlowSpecComponentItem{gobgp.NewFlowSpecComponentItem(eq, uint64(m.Port))}))
	}
	nlri, err := gobgp.NewFlowSpecUnicast(fam, comps)
	if err != nil {
		return nil, fmt.Errorf("bgp: mitigation of %s: %w", m.Prefix, err)
	}
	mp, err := gobgp.NewPathAttributeMpReachNLRI(fam, []gobgp.PathNLRI{{NLRI: nlri}})
	if err != nil {
		return nil, fmt.Errorf("bgp: mitigation of %s: %w", m.Prefix, err)
	}
	attrs = append(attrs, mp, gobgp.NewPathAttributeExtendedCommunities([]gobgp.ExtendedCommunityInterface{gobgp.NewTrafficRateExtended(0, 0)}))
	return &announcement{family: fam, nlri: nlri, attrs: attrs}, nil
}
