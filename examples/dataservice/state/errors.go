package state

import (
	"errors"
	"fmt"
)

// ErrNotFound is matched (with errors.Is) by every *NotFoundError.
var ErrNotFound = errors.New("state: not found")

// ErrLimit is matched (with errors.Is) by every *LimitError.
var ErrLimit = errors.New("state: limit reached")

// ErrUnavailable marks (errors.Is) an error of a write refused because the disk or the
// database is full (SQLite's SQLITE_FULL, PostgreSQL's disk_full: package statedb maps the
// drivers' codes, so that this package and its users link no driver): nothing was written,
// and the call may succeed later, once room is made.
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
