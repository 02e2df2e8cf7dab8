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
// # Other databases
//
// The SQL is kept to what SQLite and PostgreSQL share (INSERT ... ON CONFLICT DO NOTHING,
// DELETE ... RETURNING, BIGINT and BOOLEAN columns); what differs (placeholders, the binary
// column type) is in one dialect value. A PostgreSQL store is a new dialect and a driver; its
// callers see the same auth.Store, checked by the same authtest.Run.
package sqlstore
