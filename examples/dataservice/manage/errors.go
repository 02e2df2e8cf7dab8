package manage

import (
	"errors"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/traffic"
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

// queryError turns an error of the query parser for queries[index] into the error the caller
// receives: traffic.QueryError's, with the index when it is QUERY-SYNTAX.
func queryError(err error, index int) error {
	err = traffic.QueryError(err)
	if e, ok := err.(*apierr.Error); ok && errors.Is(e, api.QuerySyntax) {
		return e.With("index", index)
	}
	return err
}
