package manage

import (
	"encoding/json"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// Dashboard is a dashboard as the functions answer it.
type Dashboard struct {
	ID          string    `json:"id" jsonschema:"description=UUID of the dashboard"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Widgets     []Widget  `json:"widgets" jsonschema:"description=The dashboard's widgets\\, oldest first"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated" jsonschema:"description=When the dashboard or one of its widgets last changed"`
}

// DashboardSummary is a dashboard without its widgets, as list-dashboards answers it.
type DashboardSummary struct {
	ID          string    `json:"id" jsonschema:"description=UUID of the dashboard"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
}

// Widget is a widget as the functions answer it.
type Widget struct {
	ID        string          `json:"id" jsonschema:"description=UUID of the widget"`
	Dashboard string          `json:"dashboard" jsonschema:"description=UUID of its dashboard"`
	Title     string          `json:"title"`
	Kind      string          `json:"kind" jsonschema:"enum=number,enum=table,enum=timeseries,enum=bar,enum=pie"`
	Queries   []string        `json:"queries" jsonschema:"description=Query expressions\\, in order"`
	Options   json.RawMessage `json:"options" jsonschema:"type=object,description=Display settings\\, as given"`
	Created   time.Time       `json:"created"`
	Updated   time.Time       `json:"updated"`
}

// outTime is how times are answered: UTC, to the second.
func outTime(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

func dashboardOut(d state.Dashboard) Dashboard {
	out := Dashboard{ID: d.ID, Title: d.Title, Description: d.Description, Widgets: make([]Widget, 0, len(d.Widgets)),
		Created: outTime(d.Created), Updated: outTime(d.Updated)}
	for _, w := range d.Widgets {
		out.Widgets = append(out.Widgets, widgetOut(w))
	}
	return out
}

func summaryOut(d state.Dashboard) DashboardSummary {
	return DashboardSummary{ID: d.ID, Title: d.Title, Description: d.Description,
		Created: outTime(d.Created), Updated: outTime(d.Updated)}
}

func widgetOut(w state.Widget) Widget {
	q := w.Queries
	if q == nil {
		q = []string{}
	}
	o := w.Options
	if len(o) == 0 {
		o = json.RawMessage(`{}`)
	}
	return Widget{ID: w.ID, Dashboard: w.Dashboard, Title: w.Title, Kind: w.Kind, Queries: q, Options: o,
		Created: outTime(w.Created), Updated: outTime(w.Updated)}
}
