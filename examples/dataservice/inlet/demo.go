package inlet

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/demo"
	"go.uber.org/zap"
)

// demoGeoIP writes the demo's MaxMind DB files and uses them, when the configuration names
// none: the demo's public servers get AS numbers and countries.
func (c *Component) demoGeoIP() error {
	if !c.cfg.Demo || c.cfg.GeoIPASN != "" || c.cfg.GeoIPCountry != "" {
		return nil
	}
	asn, country, err := demo.WriteGeoIP(filepath.Join(c.deps.DataDir, "demo"))
	if err != nil {
		return fmt.Errorf("inlet: %w", err)
	}
	c.cfg.GeoIPASN, c.cfg.GeoIPCountry = asn, country
	return nil
}

// demoRoutes is the demo's BGP table (demo.Routes), the same for every exporter: the routes
// of the demo's records when the service runs without -bgp.
func demoRoutes() Routes {
	var t routeTable
	for _, r := range demo.Routes() {
		t = append(t, tableRoute{r.Prefix, &bgp.Route{ASPath: r.ASPath, Communities: r.Communities}})
	}
	return t
}

// routeTable is a small table of routes, looked up in order (the demo's eleven).
type routeTable []tableRoute

type tableRoute struct {
	prefix netip.Prefix
	route  *bgp.Route
}

// Lookup returns the route whose prefix holds addr, whatever the router.
func (t routeTable) Lookup(_, addr netip.Addr) (*bgp.Route, bool) {
	for _, r := range t {
		if r.prefix.Contains(addr) {
			return r.route, true
		}
	}
	return nil, false
}

// demo generates synthetic traffic until ctx is done, after calling, on a service of several
// nodes, DemoSetup (the overview dashboard and the demo's context, dashboard and alert rules;
// a single node makes them before Start), so that the backfill has its zones.
func (c *Component) demo(ctx context.Context) {
	if c.deps.Shared != "" && c.deps.DemoSetup != nil {
		c.deps.DemoSetup(ctx)
	}
	opts := demo.Options{Backfill: c.demoBackfill(ctx)}
	if err := demo.Run(ctx, c.store.Ingest, opts); err != nil && ctx.Err() == nil {
		c.log.Error("demo traffic stopped", zap.Error(err))
	}
}

// demoBackfill returns how much past traffic the demo generates at start: the last 24 hours on a
// first start, and on a restart only the time since the newest record, so that a restart never
// doubles the data.
func (c *Component) demoBackfill(ctx context.Context) time.Duration {
	const day = 24 * time.Hour
	newest, ok, err := c.deps.Records.Newest(ctx)
	if err != nil || !ok {
		return day
	}
	gap := time.Since(time.Unix(newest, 0))
	switch {
	case gap <= 0:
		return -1 // nothing to fill; a negative Backfill means none
	case gap > day:
		return day
	}
	return gap
}
