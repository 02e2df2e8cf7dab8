package state

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrNotFound is matched (with errors.Is) by every *NotFoundError.
var ErrNotFound = errors.New("state: not found")

// ErrLimit is matched (with errors.Is) by every *LimitError.
var ErrLimit = errors.New("state: limit reached")

// ErrUnavailable marks (errors.Is) an error of a write refused because the disk or the
// database is full (SQLite's SQLITE_FULL, PostgreSQL's disk_full): nothing was written, and
// the call may succeed later, once room is made.
var ErrUnavailable = errors.New("state: store unavailable")

// NotFoundError reports that an object a call names does not exist.
type NotFoundError struct {
	// Kind is the kind of object: "dashboard" or "widget".
	Kind string
	// ID is the ID the call gave.
	ID string
}

// Error says which object is missing.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("state: %s %q not found", e.Kind, e.ID)
}

// Is reports whether target is ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// LimitError reports a write refused because the store holds as many objects of a kind as
// its Limits allow.
type LimitError struct {
	// What is what is full: "dashboards" (of one owner), "widgets" (of one dashboard),
	// "bytes" (of one owner), "config" or "audit events" (of one actor).
	What string
	// Limit is the number allowed.
	Limit int
}

// Error says which limit was reached.
func (e *LimitError) Error() string {
	return fmt.Sprintf("state: at most %d %s", e.Limit, e.What)
}

// Is reports whether target is ErrLimit.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// DiskFull reports whether err (of this package, or of any SQLite or PostgreSQL database
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
