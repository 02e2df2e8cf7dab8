package bgp

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// Announce sends m to every router with a session, and to routers that connect later, until
// Withdraw: a blackhole route (the prefix, next hop m.NextHop, else Config.Nexthop4 or
// Nexthop6, communities BLACKHOLE 65535:666 of RFC 7999 and NO_EXPORT) or a flowspec rule
// (RFC 8955: the destination, the protocol and port when set, action traffic-rate 0).
// Announcing m twice is announcing it once.
func (s *Speaker) Announce(ctx context.Context, m Mitigation) error {
	if s.srv == nil {
		return errNotStarted
	}
	s.amu.Lock()
	defer s.amu.Unlock()
	if _, ok := s.announced[m]; ok {
		return nil
	}
	p, err := s.path(m)
	if err != nil {
		return err
	}
	res, err := s.srv.AddPath(apiutil.AddPathRequest{Paths: []*apiutil.Path{p}})
	if err == nil && len(res) == 1 && res[0].Error != nil {
		err = res[0].Error
	}
	if err != nil {
		return fmt.Errorf("bgp: announce %s: %w", m.Prefix, err)
	}
	s.announced[m] = p
	s.log.Info("bgp: announced", "prefix", m.Prefix, "flowspec", m.Flowspec, "protocol", m.Protocol, "port", m.Port)
	return nil
}

// Withdraw withdraws m from every router; withdrawing what is not announced does nothing.
func (s *Speaker) Withdraw(ctx context.Context, m Mitigation) error {
	if s.srv == nil {
		return errNotStarted
	}
	s.amu.Lock()
	defer s.amu.Unlock()
	p, ok := s.announced[m]
	if !ok {
		return nil
	}
	if err := s.srv.DeletePath(apiutil.DeletePathRequest{Paths: []*apiutil.Path{p}}); err != nil {
		return fmt.Errorf("bgp: withdraw %s: %w", m.Prefix, err)
	}
	delete(s.announced, m)
	s.log.Info("bgp: withdrawn", "prefix", m.Prefix, "flowspec", m.Flowspec, "protocol", m.Protocol, "port", m.Port)
	return nil
}

// path is the route that announces m. Under s.amu.
func (s *Speaker) path(m Mitigation) (*apiutil.Path, error) {
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
		return &apiutil.Path{Family: fam, Nlri: dst, Attrs: attrs}, nil
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
	return &apiutil.Path{Family: fam, Nlri: nlri, Attrs: attrs}, nil
}
