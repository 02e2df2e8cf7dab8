// Package state is the transactional store of the example data service's management data:
// dashboards, their widgets, configuration values, and the audit trail of changes
// (AppendAudit, Audit: newest first, paged back with AuditQuery.Before; kept until PruneAudit
// deletes them by age, at most Limits.AuditPerActor of one actor: see AuditQuota and
// AppendAuditBounded).
//
// Store is the interface the functions of package manage use; package statedb implements it
// (statedb.OpenSQLite: the embedded store, a SQLite database in one file, <data>/state.db;
// statedb.OpenPostgres: the one that several API nodes share). This package holds the
// interfaces, the types and the errors only, so that the functions link no database driver
// (a test of package manage checks it); package statetest checks both stores against the
// same suite.
//
// # Guarantees
//
//   - Every write is one transaction: it happens entirely or not at all. Read-modify-write
//     methods (UpdateDashboard, UpdateWidget, UpdateConfig) run the caller's change function
//     inside that transaction, so concurrent updates never lose each other's changes; when the
//     change function returns an error nothing is written and that error is returned, wrapped
//     (errors.Is and errors.As find it).
//   - A write that returned nil survives a restart, and a crash of the process or the machine:
//     the SQLite database runs in WAL mode with synchronous=FULL.
//   - The store assigns IDs (UUIDs of version 7, time first: what one process makes in one
//     millisecond lists in the order it was made) and the times Created and Updated (UTC, to
//     the millisecond). Adding, changing, moving or deleting a widget also updates its
//     dashboard's Updated time (and both dashboards' when a widget moves).
//   - Deleting a dashboard deletes its widgets in the same transaction.
//   - A missing object is a *NotFoundError (errors.Is(err, ErrNotFound)) naming its kind and
//     ID; a store full to one of its Limits is a *LimitError (errors.Is(err, ErrLimit)):
//     dashboards and bytes are counted per Owner, so one owner's use refuses nothing to
//     another; a write that finds the disk full wraps ErrUnavailable (see statedb.DiskFull).
//
// The store keeps what it is given: titles, kinds, queries, options and configuration values
// are validated by the caller (package manage). Options is kept as the JSON text it is given.
package state
