package wire

import (
	"errors"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// StoreError turns an error of the state store into the error the caller receives: NOT-FOUND
// naming the object, LIMIT-REACHED, UNAVAILABLE (a full disk), the *apierr.Error a change
// function returned, or the error itself (an internal error: logged, never sent). Every
// function over package state (dashboards, zones, alerts) answers its errors through it.
func StoreError(err error) error {
	var nf *state.NotFoundError
	var le *state.LimitError
	var ae *apierr.Error
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &nf):
		return apierr.New(apierr.NotFound, "name", nf.ID, "object", nf.Kind)
	case errors.As(err, &le):
		return apierr.New(api.LimitReached, "name", le.What, "limit", le.Limit)
	case errors.Is(err, state.ErrUnavailable):
		return apierr.New(apierr.Unavailable).Wrap(err)
	}
	return err
}

// QueryError returns the error a caller receives for err, an error of the query language
// (pvql.Parse, pvql.Validate, an Engine) or of the records store, so that each of pvql's
// errors maps to its code in this one place, for the query function and for the widget
// functions of package manage (which add the index of the query to QUERY-SYNTAX with
// apierr.Error.With):
//
//   - *pvql.SyntaxError: QUERY-SYNTAX, with its position, expected and message;
//   - pvql.ErrBusy: RATE-LIMITED, to retry after a second;
//   - *pvql.GroupsError: TOO-MANY-GROUPS, with its limit;
//   - records.ErrUnavailable: UNAVAILABLE, the cause kept for the log.
//
// Any other error is returned as it is (an internal error: logged, never sent); nil is nil.
func QueryError(err error) error {
	var se *pvql.SyntaxError
	var ge *pvql.GroupsError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return apierr.New(api.QuerySyntax, "position", se.Position, "expected", se.Expected, "message", se.Message)
	case errors.Is(err, pvql.ErrBusy):
		return apierr.New(apierr.RateLimited, "retry_after", 1,
			"reason", "the server is answering other large queries: try again in a moment, or narrow the query")
	case errors.Is(err, pvql.ErrNoQueue):
		return apierr.New(apierr.InvalidArgument, "name", "query", "reason", "FROM queue: this node has no queue (-queue)")
	case errors.As(err, &ge):
		return apierr.New(api.TooManyGroups, "limit", ge.Limit,
			"reason", "the statements of the query yield too many groups together: add a narrower WHERE, a shorter period, fewer keys or fewer statements")
	}
	return UnavailableError(err)
}

// UnavailableError answers UNAVAILABLE for a records store that could not be reached; the log
// keeps the cause, the caller learns only that it may retry. Any other error is returned as it
// is.
func UnavailableError(err error) error {
	if errors.Is(err, records.ErrUnavailable) {
		return apierr.New(apierr.Unavailable).Wrap(err)
	}
	return err
}
