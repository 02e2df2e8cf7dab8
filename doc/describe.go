package doc

import (
	"encoding/json"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/internal/schemalink"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
	"github.com/invopop/jsonschema"
)

// SchemaDialect is the JSON Schema dialect of every schema in a description.
const SchemaDialect = "https://json-schema.org/draft/2020-12/schema"

// API is the description of an API at one version: the result of doc.
type API struct {
	// Version is the version described.
	Version version.Version `json:"version"`
	// Versions lists every version served, oldest first.
	Versions []version.Version `json:"versions"`
	// Functions describes the functions served at Version, by name.
	Functions []Function `json:"functions"`
	// Errors describes the framework's error codes, which any function may answer.
	Errors []ErrorCode `json:"errors"`
	// DeclaredErrors describes the codes the functions at Version state besides the
	// framework's (registry.Errors, decl.Errors), each once, in code order.
	DeclaredErrors []ErrorCode `json:"declared_errors"`
}

// Function describes one function.
type Function struct {
	// Name is the function's name in paths and calls.
	Name string `json:"name"`
	// Description says what the function does: the Describe option, else its Go doc comment
	// (see registry.Comments); empty when neither is given.
	Description string `json:"description"`
	// Since is the version the function appeared in.
	Since version.Version `json:"since"`
	// Until is the version that removes or replaces the function; absent while it stays.
	Until *version.Version `json:"until,omitempty"`
	// Auth is the token a call needs: "none", "token" (a session ID or an API key) or
	// "session" (a session ID only).
	Auth string `json:"auth"`
	// MaxBody is the most bytes the request body of an HTTP call may hold (see
	// registry.MaxBody).
	MaxBody int64 `json:"max_body"`
	// ReadOnly reports that the function changes nothing, so that a same-site page may call it
	// with the session cookie (see registry.ReadOnly).
	ReadOnly bool `json:"read_only,omitempty"`
	// NoStore reports that answers carry secrets and are not to be cached (see
	// registry.NoStore).
	NoStore bool `json:"no_store,omitempty"`
	// Role is the role a caller needs (registry.Requires with a role; package auth says what a
	// function without one needs); absent when the function names none.
	Role string `json:"role,omitempty"`
	// Arguments is the JSON Schema of the arguments object: its properties are the arguments,
	// with their descriptions and defaults, and required lists those a call must give, in
	// declaration order.
	Arguments json.RawMessage `json:"arguments"`
	// Result is the JSON Schema of the result; {"type": "null"} for a function that returns
	// nothing. For a streaming function, it is the accumulated result of a non-streaming call.
	Result json.RawMessage `json:"result"`
	// Streaming describes the chunks of a streaming function; absent for other functions.
	Streaming *Streaming `json:"streaming,omitempty"`
	// Errors lists the codes the function stated it may answer besides the framework's, each
	// described in API.DeclaredErrors (or API.Errors, for a framework code it named).
	Errors []apierr.Code `json:"errors"`
}

// Streaming describes the chunks of a streaming function.
type Streaming struct {
	// Chunk is the JSON Schema of one chunk.
	Chunk json.RawMessage `json:"chunk"`
	// Accumulate says how chunks build the result of a non-streaming call: "append" (the
	// result is the array of every chunk), "replace" (the last chunk) or "custom" (folded by
	// the function's own rule).
	Accumulate string `json:"accumulate"`
}

// Describe returns the description of reg at version v. A version reg does not serve has no
// function.
func Describe(reg *registry.Registry, v version.Version) API {
	fs := reg.Funcs(v)
	api := API{Version: v, Versions: reg.Versions(), Functions: []Function{}, Errors: Catalogue(), DeclaredErrors: []ErrorCode{}}
	for _, f := range fs {
		api.Functions = append(api.Functions, describeFunc(f))
	}
	for _, d := range declared(fs) {
		api.DeclaredErrors = append(api.DeclaredErrors, describeError(d))
	}
	return api
}

func describeFunc(f *registry.Func) Function {
	fn := Function{
		Name:        f.Name,
		Description: f.Description,
		Since:       f.Since,
		Until:       f.Until,
		Auth:        f.Access.String(),
		MaxBody:     f.MaxBody,
		ReadOnly:    f.ReadOnly,
		NoStore:     f.NoStore,
		Role:        f.Role,
		Arguments:   withDialect(schemalink.Of(f).Args),
		Result:      withDialect(resultSchema(f)),
		Errors:      codes(f.Errors),
	}
	if f.Streaming {
		fn.Streaming = &Streaming{Chunk: withDialect(schemalink.Of(f).Chunk), Accumulate: f.Accumulator.Mode}
	}
	return fn
}

// codes returns the codes ds declare.
func codes(ds []*apierr.Declaration) []apierr.Code {
	out := make([]apierr.Code, len(ds))
	for i, d := range ds {
		out[i] = d.Code()
	}
	return out
}

// resultSchema returns the schema of f's result, null when it returns nothing.
func resultSchema(f *registry.Func) *jsonschema.Schema {
	s := schemalink.Of(f).Result
	if s == nil {
		return &jsonschema.Schema{Type: "null"}
	}
	return s
}

// withDialect returns s as JSON, naming its dialect; the registry's schema is not changed. The
// registry encoded the same schema at registration, so encoding cannot fail.
func withDialect(s *jsonschema.Schema) json.RawMessage {
	c := *s
	c.Version = SchemaDialect
	b, _ := json.Marshal(&c)
	return b
}
