// Package app assembles the data service: its stores (in the data directory, or shared with
// other nodes in PostgreSQL and ClickHouse), the functions of every package (built-ins, auth,
// traffic, manage), the API handler under /api, the metrics at /metrics, the health answers at
// /livez and /readyz, the web UI at /, the demo traffic generator and the retention loop (on one
// node at a time when the nodes share what they work on; see package cluster).
//
// The API is 1.0; 1.1 adds list-fields, 1.2 set-role and list-audit, and 1.3 the zones and
// applications (netctx) and the alert functions (package alerts). Every function states
// the role it needs (registry.Requires with an authapi.Role): reads for read-only users, changes of dashboards, widgets
// and records for users, configuration, users, other users' keys and the audit trail for
// administrators. The interceptors, outermost first: authentication and roles, the call rate
// limit (rate_limit, changeable while serving), the audit trail (manage.AuditInterceptor).
// Queries are bounded as the Config fields MaxQueryGroups, QueryGroupBudget, QueryMemory,
// QueryThreads and MaxFollows say; what standing queries (alert rules, followed queries) keep
// between their answers, as StandingGroupBudget and StandingGroupsPerUser say (querylimits.go).
//
// The command (package main beside this one) parses the command line into a Config, calls
// Open and serves Handler with fnapi.Server, then calls Close; tests call Open and serve
// Handler themselves.
package app
