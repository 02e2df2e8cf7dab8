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

// perfDashboard is the "Application performance" dashboard a service with the capture probe
// starts with: the probe's response times and retransmissions (see ensurePerfDashboard).
var perfDashboard = struct {
	title, description string
	widgets            []state.Widget
}{
	title: "Application performance",
	description: "Response times (seconds, shown in ms) and retransmissions the capture probe measured; " +
		"made on the first start with -capture or -capture-file.",
	widgets: append([]state.Widget{
		{Title: "Response times by application", Kind: "table", Queries: []string{"srt, rtt, eurt, records BY application TOP 10 FROM tcp"}},
		{Title: "Response times by server", Kind: "table", Queries: []string{"srt, rtt, eurt, records BY server.ip, server.name TOP 10 FROM tcp"}},
	}, append(perfOverTime,
		state.Widget{Title: "Retransmissions by client", Kind: "bar", Queries: []string{"retrans BY client.ip TOP 10 FROM tcp"}},
	)...),
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
