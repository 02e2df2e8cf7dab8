package app

import (
	"github.com/fnapi/fnapi/examples/dataservice/console"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// OverviewQueries returns the queries of the overview dashboard's widgets, for benchmarks.
func OverviewQueries() []string {
	var out []string
	for _, w := range overview.widgets {
		out = append(out, w.Queries...)
	}
	return out
}

// AgentDescriptions returns the tool descriptions the MCP endpoint gives models, by function.
func AgentDescriptions() map[string]string { return console.MCP().Descriptions }

// EvaluatesAlerts reports whether this node evaluates the alert rules now (holds their lease).
func (a *App) EvaluatesAlerts() bool { return a.alerts.Evaluating() }

// ResolveContext gives recs their context as the service does when it stores them, for
// benchmarks that load records straight into the store.
func (a *App) ResolveContext(recs []records.Record) { a.inlet.Resolve(recs) }
