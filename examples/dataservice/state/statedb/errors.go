package statedb

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DiskFull reports whether err (of this package or of any SQLite or PostgreSQL database
// reached through database/sql) says that the disk or the database is full: SQLite's
// SQLITE_FULL, PostgreSQL's disk_full (SQLSTATE 53100).
func DiskFull(err error) bool {
	var se *sqlite.Error
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &se):
		return se.Code()&0xff == sqlite3.SQLITE_FULL
	case errors.As(err, &pe):
		return pe.Code == "53100" // disk_full
	}
	return false
}
