// Package query is the query component of the data service: the query language's engine
// (package pvql) over the records store, bounded by its Configuration (groups per query, the
// group budget of all queries, DuckDB's memory and threads), the budgets of the standing
// queries (alert rules and followed queries, limits.go), and the functions of package traffic
// (query, follow, ingest, list-fields). Package alerts answers its rules with Rules. With a
// tracer, the engine's queries and the store's writes are spans (tracing.go).
//
// It depends on the records store and on the context the inlet gives records (through
// Dependencies), never on another component's package; docs/architecture.md shows the
// order the service starts its components in.
package query
