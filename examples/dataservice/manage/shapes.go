package manage

import (
	"encoding/json"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// outTime is how times are answered: UTC, to the second.
func outTime(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

func dashboardOut(d state.Dashboard) api.Dashboard {
	out := api.Dashboard{ID: d.ID, Title: d.Title, Description: d.Description, Widgets: make([]api.Widget, 0, len(d.Widgets)),
		Created: outTime(d.Created), Updated: outTime(d.Updated)}
	for _, w := range d.Widgets {
		out.Widgets = append(out.Widgets, widgetOut(w))
	}
	return out
}

func summaryOut(d state.Dashboard) api.DashboardSummary {
	return api.DashboardSummary{ID: d.ID, Title: d.Title, Description: d.Description,
		Created: outTime(d.Created), Updated: outTime(d.Updated)}
}

func widgetOut(w state.Widget) api.Widget {
	q := w.Queries
	if q == nil {
		q = []string{}
	}
	o := w.Options
	if len(o) == 0 {
		o = json.RawMessage(`{}`)
	}
	return api.Widget{ID: w.ID, Dashboard: w.Dashboard, Title: w.Title, Kind: w.Kind, Queries: q, Options: o,
		Created: outTime(w.Created), Updated: outTime(w.Updated)}
}
