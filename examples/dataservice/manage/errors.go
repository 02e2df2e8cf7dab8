package manage

import (
	"errors"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
)

// queryError turns an error of the query parser for queries[index] into the error the caller
// receives: wire.QueryError's, with the index when it is QUERY-SYNTAX.
func queryError(err error, index int) error {
	err = wire.QueryError(err)
	if e, ok := err.(*apierr.Error); ok && errors.Is(e, api.QuerySyntax) {
		return e.With("index", index)
	}
	return err
}
