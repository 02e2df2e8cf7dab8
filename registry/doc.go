// Package registry turns plain Go functions into API functions: it checks each function's shape
// once, at registration, derives its argument and result schemas by reflection, and binds the
// JSON arguments of every call to the function's parameters.
//
// # Function shapes
//
// A registered function has, in order: an optional context.Context; its arguments; an optional
// *stream.Sender[T] that makes it a streaming function. The arguments take one of four forms:
//
//   - one struct, whose exported fields are the arguments, named by their json tags:
//     func(ctx context.Context, in Args) (Out, error)
//   - plain parameters named at registration:
//     Register("add", func(a, b int) int { return a + b }, Args("a", "b"))
//   - one map[string]any (or map[string]json.RawMessage): any named arguments, as echo takes;
//   - no parameter at all.
//
// It returns (Out, error), Out, error or nothing; a streaming function returns error or
// nothing. Any other shape is refused by Register with an error naming the function and the
// problem: nothing is skipped silently.
//
// # Declared functions
//
// A function declared once with package decl, for the server and its Go clients, is
// registered with Implement (ImplementStream for a streaming one):
//
//	registry.MustImplement(reg, api.Greet, greet) // greet must be func(context.Context, api.GreetArgs) (string, error)
//
// The compiler refuses an implementation whose arguments or result differ from the
// declaration's. Implement registers through Register, with the declaration's name, versions,
// access, errors and description, so every rule of this package holds for it; an option that
// would change what the declaration says is refused. Register keeps working for functions not
// declared.
//
// # Required and optional arguments
//
// A struct field is optional when it is a pointer, when its json tag says omitempty or
// omitzero, or when it has a default tag; every other field is required. The default tag holds a
// JSON value that fills the argument when the call omits it, and shows in the schema:
//
//	type ListArgs struct {
//		Limit int    `json:"limit" default:"50" jsonschema:"minimum=1,maximum=1000"`
//		After *string `json:"after" jsonschema:"description=Cursor from the previous page"`
//	}
//
// Descriptions come from jsonschema tags (description=...), from the Describe option, and from
// Go doc comments compiled into the binary (see Comments). The jsonschema tags' keywords
// (enum, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern,
// minItems, maxItems) are enforced on each argument: a value that breaks one answers
// INVALID-ARGUMENT with the argument's name and the reason.
//
// # Large arguments
//
// An argument is decoded once, from the JSON the transport split the request into (which it
// checked, but did not decode). Two types are not decoded at all, for a function that takes a
// large argument and parses it itself in one pass: a parameter or field of type
// json.RawMessage receives the value as it came, and one of type []json.RawMessage receives an
// array split into its elements, each as written (null is no elements, as encoding/json has it;
// any other value is INVALID-ARGUMENT). A jsonschema constraint on such a field has it decoded
// like any other, to be checked. Their schemas, and so doc and OpenAPI, are those of any JSON
// value and of an array: clients see no difference. A data service's ingest takes its batch of
// records as []json.RawMessage.
//
// # Calls
//
// A Call carries a function, its JSON arguments and what the transport knows of the caller. The
// transport runs it through a Handler: Invoke at the centre, wrapped by Interceptors (auth, rate
// limits, logging, metrics) in a fixed onion order. Invoke checks the arguments in this order:
// a missing required argument is TOO-FEW-ARGUMENTS, then an argument the function does not take
// is UNKNOWN-ARGUMENTS, then a value of the wrong type or out of its schema is INVALID-ARGUMENT.
// A function that panics answers INTERNAL-ERROR; the panic and its stack travel in the error's
// cause for the log, never to the client.
//
// # Versions
//
// A function appears in the API version given by Since (default 1.0) and stays until the version
// given by Until, where it is removed or replaced by another registration of the same name. A
// Registry serves every version named by a Since or an Until. Check refuses a registry in which
// a minor step removes a function, removes or changes an argument, or adds a required one.
package registry
