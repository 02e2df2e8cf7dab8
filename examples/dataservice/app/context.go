package app

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
func (a *App) openContext(ctx context.Context) (*netContext, error) {
	n := &netContext{names: &netctx.Names{}}
	n.poller = netctx.NewPoller(n.names)
	files := map[string]*netctx.GeoFile{}
	for _, f := range []struct{ flag, path, layout string }{
		{"-geoip-asn", a.cfg.GeoIPASN, netctx.LayoutASN},
		{"-geoip-country", a.cfg.GeoIPCountry, netctx.LayoutCountry},
	} {
		if f.path == "" {
			continue
		}
		g, err := netctx.OpenGeoFile(f.path, f.layout)
		if err != nil {
			return nil, fmt.Errorf("app: %s: %w", f.flag, err)
		}
		files[f.layout] = g
		n.geo = append(n.geo, g)
	}
	n.resolver = netctx.NewResolver(netctx.WithBuiltin(records.Application),
		netctx.WithGeoIP(files[netctx.LayoutASN], files[netctx.LayoutCountry]), netctx.WithNames(n.names))
	if cs, ok := a.state.(state.ContextStore); ok {
		if err := manage.LoadContext(ctx, cs, n.resolver.Set); err != nil {
			return nil, fmt.Errorf("app: %w", err)
		}
	}
	a.settings.Watch(func(c manage.Config) {
		targets, interval, err := manage.ParseSNMP(c.SNMP)
		if err != nil { // checked by set-config; a hand-edited store counts as unset
			a.log.Warn("app: the snmp configuration key", zap.Error(err))
		}
		n.poller.SetTargets(targets, interval)
		devices, err := manage.ParseExporterNames(c.ExporterNames)
		if err != nil {
			a.log.Warn("app: the exporter_names configuration key", zap.Error(err))
		}
		n.names.SetStatic(devices)
	})
	return n, nil
}

// Resolver returns what gives records their context.
func (a *App) Resolver() *netctx.Resolver { return a.nctx.resolver }

// registerContext adds the zone and application functions.
func (a *App) registerContext(reg *registry.Registry) error {
	cs, ok := a.state.(state.ContextStore)
	if !ok {
		return fmt.Errorf("app: the state store keeps no zones")
	}
	return manage.RegisterContext(reg, cs, a.nctx.resolver.Set)
}

// reloadContext reads the zones and applications another node changed.
func (a *App) reloadContext() {
	cs, ok := a.state.(state.ContextStore)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := manage.LoadContext(ctx, cs, a.nctx.resolver.Set); err != nil {
		a.log.Warn("app: reading the zones and applications another node changed", zap.Error(err))
	}
}

// contextWork is the background work of the context: watching the GeoIP files, polling SNMP.
func (a *App) contextWork() []work {
	ws := []work{{name: "snmp", run: func(ctx context.Context) { a.nctx.poller.Run(ctx, 0) }}}
	for _, g := range a.nctx.geo {
		ws = append(ws, work{name: "geoip", run: func(ctx context.Context) {
			g.Watch(ctx, a.cfg.GeoIPPoll, func(err error) {
				a.log.Warn("app: a GeoIP file changed on disk and was not read; the previous stays in use", zap.Error(err))
			})
		}})
	}
	return ws
}

// snmpStatus is the last poll of each exporter the snmp key lists, for collector-status.
func (a *App) snmpStatus() []api.SNMPStatus {
	out := []api.SNMPStatus{}
	for _, p := range a.nctx.poller.Status() {
		s := api.SNMPStatus{Address: p.Address.String(), Name: a.nctx.names.Exporter(p.Address),
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
