package pvql

import (
	"errors"
	"fmt"
)

// SyntaxError reports an expression that does not follow the query language, including an
// unknown field, alias or layer. The app maps it to the QUERY-SYNTAX error code.
type SyntaxError struct {
	// Position is the 0-based offset, in characters (Unicode code points), of the offending
	// token in the expression; it equals the expression's length when the input ended early.
	Position int
	// Expected says in words what would have been valid at Position, such as
	// `a value (traffic, packets, records, ...)`.
	Expected string
	// Message describes what was found, such as `unknown field "trafic"`.
	Message string
}

// Error returns the message with its position and what was expected.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("pvql: syntax error at position %d: %s; expected %s", e.Position, e.Message, e.Expected)
}

// ErrTooManyGroups is returned (wrapped, as a *GroupsError) when the statements of a query
// yield more groups together than the engine's limit (see WithMaxGroups); a narrower period,
// a filter, fewer keys or fewer statements help.
var ErrTooManyGroups = errors.New("pvql: too many groups in the result")

// GroupsError is the error of a query over the group limit. errors.Is(err, ErrTooManyGroups)
// holds for it.
type GroupsError struct {
	// Limit is the most groups the statements of one query may yield together.
	Limit int
}

func (e *GroupsError) Error() string {
	return fmt.Sprintf("pvql: more than %d groups in the statements of the query together", e.Limit)
}

// Unwrap returns ErrTooManyGroups.
func (e *GroupsError) Unwrap() error { return ErrTooManyGroups }
