// Package app assembles the data service from its components (docs/architecture.md): it
// opens the stores (in the data directory, or shared with other nodes in PostgreSQL and
// ClickHouse) and the authenticator, starts the console (package console: configuration keys,
// handler, web UI), the inlet (package inlet: collectors, probe, demo, context), query (package
// query: engine and bounds) and alerts (package alerts: rules, evaluation, notifications) in
// that order, runs retention (on one node at a time when the nodes share what they work on;
// see package cluster), and stops it all in Close. It also makes what -demo and
// the capture probe show on a first start: the overview, the "Application performance"
// dashboard, the demo's context and alert rules.
//
// The API is 1.0; 1.1 adds list-fields, 1.2 set-role and list-audit, and 1.3 the zones and
// applications (netctx) and the alert functions (package alerts). Every function states
// the role it needs (registry.Requires with an authapi.Role): reads for read-only users, changes of dashboards, widgets
// and records for users, configuration, users, other users' keys and the audit trail for
// administrators.
//
// The command (package main beside this one) reads the command line once into a Config (the
// configuration tree of every component), calls Open and serves Handler with fnapi.Server,
// then calls Close; tests call Open and serve Handler themselves.
package app
