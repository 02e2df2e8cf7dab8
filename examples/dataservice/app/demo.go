package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/demo"
	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// What -demo makes besides its traffic, all marked as the demo's so that an operator keeping
// the service for real traffic finds and deletes it: the overview (overview.go) and the
// dashboard below (their descriptions say "-demo"), the alert rules below (the label
// demoLabel), the zones and applications of demo.Zones and demo.Applications (listed in the
// README), the exporter_names configuration key when it was unset, and the MaxMind DB files
// in the data directory's "demo" folder (used only while -geoip-asn and -geoip-country are not
// given).

// demoMade is the configuration value (a key no user can set, invisible to get-config) that
// remembers the demo's first start made its context, dashboard and rules: what an operator
// deletes stays deleted.
const demoMade = "made.demo"

// demoLabel marks the demo's alert rules: alert-history and notifications carry it.
var demoLabel = map[string]string{"demo": "true"}

// demoPerfDashboard is the demo's "Application performance" dashboard.
var demoPerfDashboard = struct {
	title, description string
	widgets            []state.Widget
}{
	title: perfDashboard.title,
	description: "Response times (seconds, shown in ms) and retransmissions of the demo network, its recurring " +
		"incident every 10 minutes, its HTTP, DNS and TLS views; made on the first start with -demo.",
	widgets: append([]state.Widget{
		{Title: "Response time percentiles by application", Kind: "table",
			Queries: []string{`p50(srt) AS "p50", p95(srt) AS "p95", p99(srt) AS "p99", records BY application ` +
				`WHERE application IN ("partner-api", "payroll", "customer-portal", "crm", "orders-db", "session-cache", "https", "dns")`}},
		{Title: "Slowest servers (p95)", Kind: "table",
			Queries: []string{`p95(srt) AS "p95", records BY server.name, server.ip TOP 10`}},
		{Title: "Orders database response time", Kind: "timeseries",
			Queries: []string{`p50(srt) AS "p50", p95(srt) AS "p95" BY time(60) WHERE application = "orders-db"`}},
		{Title: "Retransmissions by zone", Kind: "bar", Queries: []string{"retrans BY client.zone TOP 10 FROM tcp"}},
	}, append(append(perfOverTime,
		state.Widget{Title: "Public servers by AS and country", Kind: "table",
			Queries: []string{`p95(srt) AS "p95", traffic BY server.asn, server.country WHERE server.asn != 0 TOP 10`}},
	), layerWidgets...)...),
}

// demoRules are the demo's alert rules: the first two fire during the demo network's
// incident (one at the first start, which the demo begins in an incident), the third stays
// quiet.
var demoRules = []api.CreateAlertRuleArgs{
	{Name: "Orders database slow (demo)", Severity: "critical", Interval: "30s",
		Query: `p95(srt) BY application WHERE application = "orders-db" HAVING p95(srt) > 0.1 SINCE @now-120`},
	{Name: "Branch link losing packets (demo)", Severity: "warning", Interval: "30s",
		Query: `retrans / packets AS "retransmitted" BY client.zone FROM tcp WHERE client.zone IN "Branches/" ` +
			`HAVING retrans > 0.02 * packets AND packets > 500 SINCE @now-120`},
	{Name: "Partner API slow (demo)", Severity: "warning", Interval: "60s",
		Query: `p95(srt) BY application WHERE application = "partner-api" HAVING p95(srt) > 3 SINCE @now-300`},
}

// demoSetup makes, on a first start of a service of several nodes, the overview dashboard and
// the demo's context, dashboard and alert rules (ensureDemo: a single node makes them in
// Open): the inlet calls it on the node that holds the demo's lease, before its traffic.
func (a *App) demoSetup(ctx context.Context) {
	if err := a.ensureOverview(ctx); err != nil {
		a.log.Error("demo overview dashboard", zap.Error(err))
	}
	if err := a.ensureDemo(ctx); err != nil {
		a.log.Error("demo", zap.Error(err))
	}
}

// ensureDemo makes, once in the life of the store, the demo's zones, applications, exporter
// names, "Application performance" dashboard (unless a capture start made one) and alert
// rules. It claims the making first (one node wins); a part that fails is logged and not
// retried.
func (a *App) ensureDemo(ctx context.Context) error {
	perfMade := false
	_, err := a.state.UpdateConfig(ctx, func(values map[string]string) error {
		if _, ok := values[demoMade]; ok {
			return errMadeAlready
		}
		_, perfMade = values[perfDashboardMade]
		values[demoMade], values[perfDashboardMade] = "true", "true"
		return nil
	})
	if errors.Is(err, errMadeAlready) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("app: demo: %w", err)
	}
	a.demoContext(ctx)
	if !perfMade {
		if err := a.makeDashboard(ctx, demoPerfDashboard.title, demoPerfDashboard.description, demoPerfDashboard.widgets); err != nil {
			a.log.Error("demo: application performance dashboard", zap.Error(err))
		}
	}
	// The rules are the default administrator's, as if they had made them in the console.
	admin := registry.WithCall(ctx, &registry.Call{Identity: &auth.Identity{User: auth.AdminUser, Role: authapi.RoleAdmin, Admin: true}})
	for _, r := range demoRules {
		r.Labels = demoLabel
		if _, err := a.alerts.Service().CreateRule(admin, r); err != nil {
			a.log.Error("demo: alert rule", zap.String("rule", r.Name), zap.Error(err))
		}
	}
	return nil
}

// demoContext sets the demo's zones and applications, with the checks of set-zone and
// set-application, and the exporter_names configuration key when unset. A zone or application
// the operator's context refuses (a network already in one of their zones) is left out.
func (a *App) demoContext(ctx context.Context) {
	cs, ok := a.state.(state.ContextStore)
	if !ok {
		return
	}
	for _, z := range demo.Zones() {
		if _, err := cs.SetZone(ctx, state.Zone{Name: z.Name, Networks: z.Networks}, manage.CheckContext); err != nil {
			a.log.Warn("demo: zone", zap.String("zone", z.Name), zap.Error(err))
		}
	}
	for _, app := range demo.Applications() {
		var rules []state.Rule
		for _, r := range app.Rules {
			rules = append(rules, state.Rule{Protocol: r.Protocol, Ports: r.Ports, Networks: r.Networks})
		}
		if _, err := cs.SetApplication(ctx, state.Application{Name: app.Name, Rules: rules}, manage.CheckContext); err != nil {
			a.log.Warn("demo: application", zap.String("application", app.Name), zap.Error(err))
		}
	}
	if err := manage.LoadContext(ctx, cs, a.inlet.Resolver().Set); err != nil {
		a.log.Error("demo: applying the zones and applications", zap.Error(err))
	}
	if a.console.Settings().Config().ExporterNames != "" {
		return
	}
	names, err := json.Marshal(demo.Exporters())
	if err == nil {
		_, err = a.console.Settings().Set(ctx, map[string]json.RawMessage{manage.KeyExporterNames: names})
	}
	if err != nil {
		a.log.Error("demo: exporter names", zap.Error(err))
	}
}
