package app

import (
	"context"
	"fmt"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// overview is the dashboard a -demo service starts with, so that the web UI shows the demo
// traffic at once.
var overview = struct {
	title, description string
	widgets            []state.Widget
}{
	title:       "Network overview",
	description: "The demo network's traffic over the last hour; made on the first start with -demo.",
	widgets: []state.Widget{
		{Title: "Traffic", Kind: "number", Queries: []string{"traffic"}},
		{Title: "Traffic over time", Kind: "timeseries", Queries: []string{"traffic BY time(60)"}},
		{Title: "Conversations", Kind: "number", Queries: []string{"records"}},
		{Title: "Traffic by application", Kind: "bar", Queries: []string{"traffic BY application TOP 10"}},
		{Title: "Traffic by protocol", Kind: "pie", Queries: []string{"traffic BY protocol"}},
		{Title: "Busiest servers", Kind: "table", Queries: []string{"traffic, packets, records BY server.ip, application TOP 10"}},
		{Title: "Upload share by client", Kind: "table", Queries: []string{`client.traffic / traffic AS "upload share", traffic BY client.ip TOP 10`}},
	},
}

// ensureOverview creates the overview dashboard when the store has no dashboard at all, but
// for the "Application performance" one a probe made (see ensurePerfDashboard).
func (a *App) ensureOverview(ctx context.Context) error {
	ds, err := a.state.Dashboards(ctx)
	if err != nil {
		return err
	}
	for _, d := range ds {
		if d.Title != perfDashboard.title {
			return nil
		}
	}
	if err := a.makeDashboard(ctx, overview.title, overview.description, overview.widgets); err != nil {
		return fmt.Errorf("app: overview dashboard: %w", err)
	}
	return nil
}
