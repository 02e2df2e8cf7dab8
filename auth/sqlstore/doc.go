// Package sqlstore keeps the users, sessions and API keys of package auth in SQL, through
// database/sql: Open gives a SQLite file (the pure-Go modernc.org/sqlite driver, no cgo), New
// takes a database the application already has open.
//
// It is its own Go module, so that importing fnapi never pulls a database driver.
//
// # What is stored
//
// Three tables, prefixed auth_ so that they can share a database with the application's own:
// auth_users (name, argon2id password hash, admin flag, creation), auth_sessions and auth_keys,
// which hold the SHA-256 hash of each session ID and key, never the token itself. Times are
// Unix nanoseconds in BIGINT columns. Every change is one transaction: DeleteUser removes the
// user's sessions and keys with it, without relying on foreign keys being enabled.
//
// # Durability
//
// Open sets the journal to WAL and synchronous to FULL: a committed user, key or revocation
// survives a killed process and a power cut. Last uses of sessions and keys arrive in batches
// from the Authenticator (see auth.WithFlushInterval), so they cost no write per call.
//
// # Schema versions
//
// The tables are versioned: auth_schema holds how many of this package's migration steps were
// applied, and Open, New and NewPostgres apply the missing ones in one transaction (a
// database made before versioning is taken as it is and marked). Version 3 adds the users'
// role column (administrators from the admin column, everyone else RoleUser; the admin column
// stays, kept equal), skipping the column when a release before versioning added it already.
// A database whose schema is
// newer than this package's is refused with an error saying so, rather than read or written
// by code that does not know its tables.
//
// # PostgreSQL
//
// The SQL is kept to what SQLite and PostgreSQL share (INSERT ... ON CONFLICT DO NOTHING,
// DELETE ... RETURNING, BIGINT and BOOLEAN columns); what differs (placeholders, the binary
// column type, locking) is in one dialect value. NewPostgres takes a PostgreSQL database opened
// with any database/sql driver, so this module pulls none; both dialects pass authtest.Run.
//
// Several processes may share one PostgreSQL database. Their migrations at start take an
// advisory transaction lock, so that two processes starting at once migrate one after the
// other. Triggers send a notification on [Channel] at the commit of every change another
// process's token cache must see (a session ended, a key revoked, a user changed or deleted):
// a process that LISTENs on it and drives auth's Forget methods sees such a change at once
// rather than after its cache's TTL.
package sqlstore
