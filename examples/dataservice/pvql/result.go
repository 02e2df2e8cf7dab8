package pvql

import "github.com/fnapi/fnapi/examples/dataservice/api"

// The answer's types live in package api, which Go clients import without the engine.
type (
	// Result is the answer to one statement: api.Result.
	Result = api.Result
	// Meta is the "meta" object of a Result: api.Meta.
	Meta = api.Meta
	// Row is one group of a Result, [keys, values] in JSON: api.Row.
	Row = api.Row
)
