// Package wire holds the few things the data service's components share about what a caller
// sees: the text form of configuration durations ("90s", "2h", "30d"; ParseDuration,
// FormatDuration) and the errors a caller receives for a failure of the query language or a
// store (QueryError, StoreError, UnavailableError). It is a leaf beside package api: it imports
// api and the domain packages (pvql, records, state) and no component, so that no component
// imports another for a helper (see docs/architecture.md).
package wire
