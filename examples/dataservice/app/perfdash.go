package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// perfOverTime are the dashboard's widgets over time: the 95th percentiles of the times a
// histogram keeps (rtt and eurt are sums of averages, which have none).
var perfOverTime = []state.Widget{
	{Title: "Response times over time (p95)", Kind: "timeseries",
		Queries: []string{`p95(srt) AS "srt", p95(server.rtt) AS "server.rtt", p95(client.rtt) AS "client.rtt" BY time(60) FROM tcp`}},
}

// layerWidgets are the dashboard's views of the application layers (FROM http, dns, tls), the
// same on the capture's dashboard and the demo's: which paths are slow or failing, which names
// fail to resolve, which servers speak an old TLS or show a certificate that expires first.
var layerWidgets = []state.Widget{
	{Title: "HTTP: slowest paths (p95)", Kind: "table",
		Queries: []string{`p95(srt) AS "p95", records BY http.host, http.path FROM http TOP 10`}},
	{Title: "HTTP: requests by status", Kind: "bar", Queries: []string{"records BY http.status FROM http TOP 10"}},
	// Client errors too (404s are broken links), not only server errors: a quiet hour often has
	// no 5xx at all, and the widget would look broken (the demo's at night did).
	{Title: "HTTP: errors by path (4xx, 5xx)", Kind: "table",
		Queries: []string{"records BY http.host, http.path, http.status FROM http WHERE http.status > 399 TOP 10"}},
	{Title: "DNS: queries by answer", Kind: "table", Queries: []string{`records, p95(srt) AS "p95" BY dns.rcode FROM dns TOP 10`}},
	{Title: "DNS: failing names", Kind: "table",
		Queries: []string{"records BY dns.qname, dns.rcode FROM dns WHERE dns.rcode IN (NXDOMAIN, SERVFAIL, timeout) TOP 10"}},
	{Title: "TLS: handshakes by version", Kind: "bar", Queries: []string{"records BY tls.version FROM tls TOP 10"}},
	{Title: "TLS: certificates seen (expiry)", Kind: "table",
		Queries: []string{"records BY server.name, tls.not_after FROM tls WHERE tls.not_after > 0 TOP 10"}},
}

// perfDashboard is the "Application performance" dashboard a service with the capture probe
// starts with: the probe's response times and retransmissions (see ensurePerfDashboard).
var perfDashboard = struct {
	title, description string
	widgets            []state.Widget
}{
	title: "Application performance",
	description: "Response times (seconds, shown in ms) and retransmissions the capture probe measured, its HTTP, DNS " +
		"and TLS views; " +
		"made on the first start with -capture or -capture-file.",
	widgets: append([]state.Widget{
		{Title: "Response times by application", Kind: "table", Queries: []string{"srt, rtt, eurt, records BY application TOP 10 FROM tcp"}},
		{Title: "Response times by server", Kind: "table", Queries: []string{"srt, rtt, eurt, records BY server.ip, server.name TOP 10 FROM tcp"}},
	}, append(append(perfOverTime,
		state.Widget{Title: "Retransmissions by client", Kind: "bar", Queries: []string{"retrans BY client.ip TOP 10 FROM tcp"}},
	), layerWidgets...)...),
}

// perfDashboardMade is the configuration value (a key no user can set, invisible to
// get-config) that remembers the dashboard was made: deleting it is final, and nodes sharing
// PostgreSQL that start together make one, since the store serialises UpdateConfig.
const perfDashboardMade = "made.application_performance"

// errMadeAlready stops the claim of a dashboard another start made.
var errMadeAlready = errors.New("app: made already")

// ensurePerfDashboard makes the "Application performance" dashboard once in the life of the
// store, on the first start of a node with the capture probe: it first claims the making in
// the configuration (one node wins), then makes the dashboard; a failure gives the claim back.
func (a *App) ensurePerfDashboard(ctx context.Context) error {
	if !a.cfg.Inlet.Capturing() {
		return nil
	}
	_, err := a.state.UpdateConfig(ctx, func(values map[string]string) error {
		if _, ok := values[perfDashboardMade]; ok {
			return errMadeAlready
		}
		values[perfDashboardMade] = "true"
		return nil
	})
	if errors.Is(err, errMadeAlready) {
		return nil
	}
	if err == nil {
		err = a.makeDashboard(ctx, perfDashboard.title, perfDashboard.description, perfDashboard.widgets)
		if err != nil {
			_, _ = a.state.UpdateConfig(ctx, func(values map[string]string) error { delete(values, perfDashboardMade); return nil })
		}
	}
	if err != nil {
		return fmt.Errorf("app: application performance dashboard: %w", err)
	}
	return nil
}

// makeDashboard stores a dashboard with its widgets.
func (a *App) makeDashboard(ctx context.Context, title, description string, widgets []state.Widget) error {
	d, err := a.state.CreateDashboard(ctx, state.Dashboard{Title: title, Description: description})
	if err != nil {
		return err
	}
	for _, w := range widgets {
		w.Dashboard, w.Options = d.ID, json.RawMessage(`{}`)
		if _, err := a.state.CreateWidget(ctx, w); err != nil {
			_ = a.state.DeleteDashboard(ctx, d.ID)
			return err
		}
	}
	return nil
}
