package inlet

import (
	"context"
	"fmt"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// netContext is what gives records their context (package netctx): the resolver, the names
// SNMP polls, and the GeoIP files watched on disk.
type netContext struct {
	resolver *netctx.Resolver
	names    *netctx.Names
	poller   *netctx.Poller
	geo      []*netctx.GeoFile
}

// openContext opens the GeoIP files of the configuration, loads the zones and applications
// of the state store, and follows the snmp and exporter_names configuration keys.
func (c *Component) openContext(ctx context.Context) (*netContext, error) {
	n := &netContext{names: &netctx.Names{}}
	n.poller = netctx.NewPoller(n.names)
	files := map[string]*netctx.GeoFile{}
	for _, f := range []struct{ flag, path, layout string }{
		{"-geoip-asn", c.cfg.GeoIPASN, netctx.LayoutASN},
		{"-geoip-country", c.cfg.GeoIPCountry, netctx.LayoutCountry},
	} {
		if f.path == "" {
			continue
		}
		g, err := netctx.OpenGeoFile(f.path, f.layout)
		if err != nil {
			return nil, fmt.Errorf("inlet: %s: %w", f.flag, err)
		}
		files[f.layout] = g
		n.geo = append(n.geo, g)
	}
	n.resolver = netctx.NewResolver(netctx.WithBuiltin(records.Application),
		netctx.WithGeoIP(files[netctx.LayoutASN], files[netctx.LayoutCountry]), netctx.WithNames(n.names))
	if cs, ok := c.deps.State.(state.ContextStore); ok {
		if err := manage.LoadContext(ctx, cs, n.resolver.Set); err != nil {
			return nil, fmt.Errorf("inlet: %w", err)
		}
	}
	c.deps.Settings.Watch(func(cfg manage.Config) {
		targets, interval, err := manage.ParseSNMP(cfg.SNMP)
		if err != nil { // checked by set-config; a hand-edited store counts as unset
			c.log.Warn("inlet: the snmp configuration key", zap.Error(err))
		}
		n.poller.SetTargets(targets, interval)
		devices, err := manage.ParseExporterNames(cfg.ExporterNames)
		if err != nil {
			c.log.Warn("inlet: the exporter_names configuration key", zap.Error(err))
		}
		n.names.SetStatic(devices)
	})
	return n, nil
}

// registerContext adds the zone and application functions.
func (c *Component) registerContext(reg *registry.Registry) error {
	cs, ok := c.deps.State.(state.ContextStore)
	if !ok {
		return fmt.Errorf("inlet: the state store keeps no zones")
	}
	return manage.RegisterContext(reg, cs, c.nctx.resolver.Set)
}

// ReloadContext reads the zones and applications another node changed.
func (c *Component) ReloadContext() {
	cs, ok := c.deps.State.(state.ContextStore)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := manage.LoadContext(ctx, cs, c.nctx.resolver.Set); err != nil {
		c.log.Warn("inlet: reading the zones and applications another node changed", zap.Error(err))
	}
}

// contextWork is the background work of the context: watching the GeoIP files, polling SNMP.
func (c *Component) contextWork() []func(context.Context) {
	ws := []func(context.Context){func(ctx context.Context) { c.nctx.poller.Run(ctx, 0) }}
	for _, g := range c.nctx.geo {
		ws = append(ws, func(ctx context.Context) {
			g.Watch(ctx, c.cfg.GeoIPPoll, func(err error) {
				c.log.Warn("inlet: a GeoIP file changed on disk and was not read; the previous stays in use", zap.Error(err))
			})
		})
	}
	return ws
}

// snmpStatus is the last poll of each exporter the snmp key lists, for collector-status.
func (c *Component) snmpStatus() []api.SNMPStatus {
	out := []api.SNMPStatus{}
	for _, p := range c.nctx.poller.Status() {
		s := api.SNMPStatus{Address: p.Address.String(), Name: c.nctx.names.Exporter(p.Address),
			Interfaces: p.Interfaces, Error: p.Error}
		if !p.Last.IsZero() {
			s.LastPoll = &p.Last
		}
		if !p.OK.IsZero() {
			s.LastAnswer = &p.OK
		}
		out = append(out, s)
	}
	return out
}
