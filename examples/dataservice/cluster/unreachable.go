package cluster

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/fnapi/fnapi/registry"
	"github.com/jackc/pgx/v5/pgconn"
)

// Unreachable reports whether err says that the database could not be reached or went away
// during the call (refused or lost connections, a server shutting down or starting up) or
// found its disk full (statedb.DiskFull, whichever store: state, users, audit trail), as
// opposed to an error of the call itself: a call that failed so may succeed when retried.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, state.ErrUnavailable) || statedb.DiskFull(err) {
		return true
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &ce), errors.Is(err, driver.ErrBadConn), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed), pgconn.SafeToRetry(err):
		return true
	case errors.As(err, &pe):
		// Class 08: connection exception; 57P01-57P03: the server is shutting down or starting.
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	case errors.As(err, &ne):
		return !errors.Is(err, context.DeadlineExceeded)
	}
	return false
}

// Interceptor answers UNAVAILABLE (503) instead of INTERNAL-ERROR for a call that failed
// because a store could not be reached, so that clients know to retry. It goes first in the
// interceptor chain, to see the errors of the authentication interceptor too.
func Interceptor() registry.Interceptor {
	return func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (any, error) {
			res, err := next(ctx, c)
			if err != nil && Unreachable(err) {
				var ae *apierr.Error
				if !errors.As(err, &ae) || ae.Code() == apierr.Internal.Code() {
					return nil, apierr.New(apierr.Unavailable).Wrap(err)
				}
			}
			return res, err
		}
	}
}
