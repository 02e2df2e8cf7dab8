// Package state is the transactional store of the example data service's management data:
// dashboards, their widgets, configuration values, and the audit trail of changes
// (AppendAudit, Audit: newest first, paged back with AuditQuery.Before; kept until PruneAudit
// deletes them by age, at most Limits.AuditPerActor of one actor: see AuditQuota and
// AppendAuditBounded).
//
// Store is the interface the functions of package manage use; OpenSQLite returns its embedded
// implementation, a SQLite database (through database/sql and the pure-Go modernc.org/sqlite
// driver) in one file, <data>/state.db; OpenPostgres returns the one that several API nodes
// share, a PostgreSQL database (through pgx's database/sql driver). Package statetest checks
// both against the same suite.
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
//     another; a write that finds the disk full wraps ErrUnavailable (see DiskFull).
//
// The store keeps what it is given: titles, kinds, queries, options and configuration values
// are validated by the caller (package manage). Options is kept as the JSON text it is given.
//
// # SQLite
//
// Writes go through one connection that begins every transaction IMMEDIATE (the write lock
// is taken at BEGIN, so a read-modify-write never fails half-way on a lock upgrade); reads go
// through a pool of read-only connections that WAL lets run beside the writer. The schema is
// versioned with PRAGMA user_version and migrated at open.
//
// # PostgreSQL
//
// The same SQL runs on PostgreSQL (its connections rewrite the ? placeholders), so both stores
// behave alike by construction; so do the migrations, which PostgreSQL runs with times in
// BIGINT and with triggers of its own added. Every write transaction first takes
// one advisory lock, which serialises writes across all the nodes as SQLite's one writer does
// within a process: read-modify-write methods lose no update when two nodes change one object
// at once. Reads run at REPEATABLE READ, so a dashboard and its widgets come from one snapshot.
// A commit that changes the configuration sends a notification on [ConfigChannel], so that
// the other nodes re-read it at once; one that changes zones or applications ([ContextStore])
// on [ContextChannel].
//
// # Schema versions
//
// Opening a store applies the missing migrations in one transaction; on PostgreSQL under the
// write lock, so that nodes starting together migrate one after the other (the others then
// find the schema current). A database whose schema version is higher than this program knows
// (a newer program migrated it) is refused with an error that says so, rather than read or
// written by code that does not know its tables.
package state
