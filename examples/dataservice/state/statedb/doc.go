// Package statedb implements the stores of package state: OpenSQLite returns the embedded
// one, a SQLite database (through database/sql and the pure-Go modernc.org/sqlite driver) in
// one file, <data>/state.db; OpenPostgres returns the one that several API nodes share, a
// PostgreSQL database (through pgx's database/sql driver); OpenAlerts, the alert tables in
// either. The drivers' errors are mapped here to package state's (a full disk: DiskFull,
// state.ErrUnavailable), so that only this package links the drivers.
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
// the other nodes re-read it at once; one that changes zones or applications ([state.ContextStore])
// on [state.ContextChannel].
//
// # Schema versions
//
// Opening a store applies the missing migrations in one transaction; on PostgreSQL under the
// write lock, so that nodes starting together migrate one after the other (the others then
// find the schema current). A database whose schema version is higher than this program knows
// (a newer program migrated it) is refused with an error that says so, rather than read or
// written by code that does not know its tables.
package statedb
