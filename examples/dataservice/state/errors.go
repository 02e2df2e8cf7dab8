package state

import (
	"errors"
	"fmt"
)

// ErrNotFound is matched (with errors.Is) by every *NotFoundError.
var ErrNotFound = errors.New("state: not found")

// ErrLimit is matched (with errors.Is) by every *LimitError.
var ErrLimit = errors.New("state: limit reached")

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
	// What is what is full: "dashboards", "widgets" (of one dashboard) or "config".
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
