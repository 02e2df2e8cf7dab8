// Package schemalink lets doc and mcp reach the parsed JSON Schemas the registry builds (its
// registry.Func shows them only as JSON, so that no third-party type is in its API). Package
// registry fills it in when it is initialised.
package schemalink

import "github.com/invopop/jsonschema"

// Schemas are the JSON Schemas of one registered function. They are shared: do not change them.
type Schemas struct {
	// Args is the schema of the arguments object.
	Args *jsonschema.Schema
	// Result is the schema of the result; nil when the function returns nothing.
	Result *jsonschema.Schema
	// Chunk is the schema of one chunk; nil unless the function streams.
	Chunk *jsonschema.Schema
	// Params are the schemas of the arguments, in the order of registry.Func.Params.
	Params []*jsonschema.Schema
}

// Of returns the schemas of f, a *registry.Func.
var Of func(f any) *Schemas
