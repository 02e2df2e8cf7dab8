package manage

import (
	"context"
	"fmt"
	"net/netip"
	"sync"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
	"github.com/fnapi/fnapi/registry"
)

// contextService holds what the zone and application functions need.
type contextService struct {
	store state.ContextStore
	apply func(zones []netctx.Zone, apps []netctx.Application) error
	mu    sync.Mutex // serialises changes, so that the sets are applied in the order stored
}

// RegisterContext adds list-zones, set-zone, delete-zone, list-applications,
// set-application and delete-application (API 1.3, administrators) to reg. They keep zones
// and applications in st; after each change they call apply with the whole set, as
// LoadContext does (a netctx.Resolver's Set).
func RegisterContext(reg *registry.Registry, st state.ContextStore, apply func([]netctx.Zone, []netctx.Application) error) error {
	if st == nil || apply == nil {
		return fmt.Errorf("manage: RegisterContext needs a store and apply")
	}
	s := &contextService{store: st, apply: apply}
	listZones := func(ctx context.Context, _ decl.None) ([]api.Zone, error) { return s.listZones(ctx) }
	listApps := func(ctx context.Context, _ decl.None) ([]api.Application, error) { return s.listApplications(ctx) }
	admin := registry.Requires(authapi.RoleAdmin)
	for _, err := range []error{
		registry.Implement(reg, api.ListZones, listZones, admin, registry.ReadOnly()),
		registry.Implement(reg, api.SetZone, s.setZone, admin),
		registry.Implement(reg, api.DeleteZone, s.deleteZone, admin),
		registry.Implement(reg, api.ListApplications, listApps, admin, registry.ReadOnly()),
		registry.Implement(reg, api.SetApplication, s.setApplication, admin),
		registry.Implement(reg, api.DeleteApplication, s.deleteApplication, admin),
	} {
		if err != nil {
			return fmt.Errorf("manage: %w", err)
		}
	}
	return nil
}

// LoadContext reads the zones and applications of st and hands them to apply: at start, and
// when another node changed them.
func LoadContext(ctx context.Context, st state.ContextStore, apply func([]netctx.Zone, []netctx.Application) error) error {
	zs, err := st.Zones(ctx)
	if err != nil {
		return fmt.Errorf("manage: %w", err)
	}
	as, err := st.Applications(ctx)
	if err != nil {
		return fmt.Errorf("manage: %w", err)
	}
	nz, na, err := compileContext(zs, as)
	if err != nil {
		return fmt.Errorf("manage: stored zones and applications: %w", err)
	}
	return apply(nz, na)
}

func (s *contextService) listZones(ctx context.Context) ([]api.Zone, error) {
	zs, err := s.store.Zones(ctx)
	if err != nil {
		return nil, wire.StoreError(err)
	}
	out := make([]api.Zone, 0, len(zs))
	for _, z := range zs {
		out = append(out, zoneOut(z))
	}
	return out, nil
}

func (s *contextService) listApplications(ctx context.Context) ([]api.Application, error) {
	as, err := s.store.Applications(ctx)
	if err != nil {
		return nil, wire.StoreError(err)
	}
	out := make([]api.Application, 0, len(as))
	for _, a := range as {
		out = append(out, applicationOut(a))
	}
	return out, nil
}

func (s *contextService) setZone(ctx context.Context, in api.SetZoneArgs) (api.Zone, error) {
	if err := netctx.CheckName(in.Name); err != nil {
		return api.Zone{}, invalid("name", err.Error())
	}
	nets := make([]string, len(in.Networks))
	for i, n := range in.Networks {
		p, err := parseNetwork(n)
		if err != nil {
			return api.Zone{}, invalid(fmt.Sprintf("networks[%d]", i), err.Error())
		}
		nets[i] = p.String()
	}
	var z state.Zone
	err := s.change(ctx, "networks", func(check state.CheckContext) (err error) {
		z, err = s.store.SetZone(ctx, state.Zone{Name: in.Name, Networks: nets}, check)
		return err
	})
	if err != nil {
		return api.Zone{}, err
	}
	return zoneOut(z), nil
}

func (s *contextService) deleteZone(ctx context.Context, in api.NameArgs) (bool, error) {
	err := s.change(ctx, "name", func(check state.CheckContext) error { return s.store.DeleteZone(ctx, in.Name, check) })
	if err != nil {
		return false, err
	}
	return true, nil
}

func (s *contextService) setApplication(ctx context.Context, in api.SetApplicationArgs) (api.Application, error) {
	if err := netctx.CheckName(in.Name); err != nil {
		return api.Application{}, invalid("name", err.Error())
	}
	if len(in.Rules) == 0 {
		return api.Application{}, invalid("rules", "an application needs at least one rule")
	}
	rules := make([]state.Rule, len(in.Rules))
	for i, r := range in.Rules {
		sr := state.Rule{Protocol: r.Protocol, Ports: r.Ports, ServerZone: r.ServerZone, ClientZone: r.ClientZone}
		for j, n := range r.Networks {
			p, err := parseNetwork(n)
			if err != nil {
				return api.Application{}, invalid(fmt.Sprintf("rules[%d].networks[%d]", i, j), err.Error())
			}
			sr.Networks = append(sr.Networks, p.String())
		}
		if _, err := compileRule(sr); err != nil {
			return api.Application{}, invalid(fmt.Sprintf("rules[%d].%s", i, err.field), err.reason)
		}
		rules[i] = sr
	}
	var a state.Application
	err := s.change(ctx, "rules", func(check state.CheckContext) (err error) {
		a, err = s.store.SetApplication(ctx, state.Application{Name: in.Name, Rules: rules}, check)
		return err
	})
	if err != nil {
		return api.Application{}, err
	}
	return applicationOut(a), nil
}

func (s *contextService) deleteApplication(ctx context.Context, in api.NameArgs) (bool, error) {
	err := s.change(ctx, "name", func(check state.CheckContext) error { return s.store.DeleteApplication(ctx, in.Name, check) })
	if err != nil {
		return false, err
	}
	return true, nil
}

// change runs a change of the store with the check that the set it leaves compiles (an
// error names field), then applies that set, so that this node's records take it at once.
func (s *contextService) change(ctx context.Context, field string, write func(state.CheckContext) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var nz []netctx.Zone
	var na []netctx.Application
	err := write(func(zs []state.Zone, as []state.Application) error {
		var err error
		if nz, na, err = compileContext(zs, as); err != nil {
			return invalid(field, err.Error())
		}
		return nil
	})
	if err != nil {
		return wire.StoreError(err)
	}
	if err := s.apply(nz, na); err != nil {
		return fmt.Errorf("manage: apply zones and applications: %w", err) // compiled above: not expected
	}
	return nil
}

func invalid(field, reason string) error {
	return apierr.New(apierr.InvalidArgument, "name", field, "reason", reason)
}

// parseNetwork reads a CIDR that names its network (no host bits).
func parseNetwork(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return p, fmt.Errorf("%q is not a CIDR such as 10.1.0.0/16 or 2001:db8::/32", s)
	}
	if p.Masked() != p {
		return p, fmt.Errorf("%s has host bits set: the network is %s", s, p.Masked())
	}
	return p, nil
}

// ruleError names the field of a rule that is wrong.
type ruleError struct{ field, reason string }

func (e *ruleError) Error() string { return e.field + ": " + e.reason }

func compileRule(r state.Rule) (netctx.Rule, *ruleError) {
	var out netctx.Rule
	var err error
	if out.Protocol, err = netctx.ParseProtocol(r.Protocol); err != nil {
		return out, &ruleError{"protocol", err.Error()}
	}
	if out.PortLow, out.PortHigh, err = netctx.ParsePorts(r.Ports); err != nil {
		return out, &ruleError{"ports", err.Error()}
	}
	for _, z := range []struct{ field, name string }{{"server_zone", r.ServerZone}, {"client_zone", r.ClientZone}} {
		if z.name != "" {
			if err := netctx.CheckStoredName(z.name); err != nil {
				return out, &ruleError{z.field, err.Error()}
			}
		}
	}
	out.ServerZone, out.ClientZone = r.ServerZone, r.ClientZone
	for _, n := range r.Networks {
		p, err := parseNetwork(n)
		if err != nil {
			return out, &ruleError{"networks", err.Error()}
		}
		out.Networks = append(out.Networks, p)
	}
	return out, nil
}

// compileContext checks stored zones and applications as a whole (netctx's rules).
func compileContext(zs []state.Zone, as []state.Application) ([]netctx.Zone, []netctx.Application, error) {
	nz := make([]netctx.Zone, 0, len(zs))
	for _, z := range zs {
		c := netctx.Zone{Name: z.Name}
		for _, n := range z.Networks {
			p, err := parseNetwork(n)
			if err != nil {
				return nil, nil, fmt.Errorf("zone %q: %w", z.Name, err)
			}
			c.Networks = append(c.Networks, p)
		}
		nz = append(nz, c)
	}
	na := make([]netctx.Application, 0, len(as))
	for _, a := range as {
		c := netctx.Application{Name: a.Name}
		for i, r := range a.Rules {
			cr, err := compileRule(r)
			if err != nil {
				return nil, nil, fmt.Errorf("application %q: rule %d: %w", a.Name, i, err)
			}
			c.Rules = append(c.Rules, cr)
		}
		na = append(na, c)
	}
	// The whole set's own rules (overlaps, rules that can never match).
	zt, err := netctx.NewZones(nz)
	if err != nil {
		return nil, nil, err
	}
	if _, err := netctx.NewApplications(na, zt); err != nil {
		return nil, nil, err
	}
	return nz, na, nil
}

func zoneOut(z state.Zone) api.Zone {
	nets := z.Networks
	if nets == nil {
		nets = []string{}
	}
	return api.Zone{Name: z.Name, Networks: nets, Updated: outTime(z.Updated)}
}

func applicationOut(a state.Application) api.Application {
	out := api.Application{Name: a.Name, Rules: make([]api.ApplicationRule, 0, len(a.Rules)), Updated: outTime(a.Updated)}
	for _, r := range a.Rules {
		nets := r.Networks
		if nets == nil {
			nets = []string{}
		}
		out.Rules = append(out.Rules, api.ApplicationRule{Protocol: r.Protocol, Ports: r.Ports,
			ServerZone: r.ServerZone, ClientZone: r.ClientZone, Networks: nets})
	}
	return out
}
