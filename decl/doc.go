// Package decl declares an API function once, with its Go types, so that a server implements it
// and a client calls it, both checked by the compiler, without generating code.
//
// A declaration names the function, its argument type, its result type (or, for a streaming
// function, its chunk type) and what the API promises about it: the version it appeared in,
// the token it needs and the error codes of its own it may answer:
//
//	type GreetArgs struct {
//		Name string `json:"name"`
//	}
//
//	var Greet = decl.Func[GreetArgs, string]("greet", decl.Since("1.1"), decl.Requires(decl.Public))
//	var Count = decl.Stream[CountArgs, int]("count", decl.Requires(decl.Public))
//
// The server implements it with registry.Implement, which refuses at compile time a function
// whose signature is not func(context.Context, GreetArgs) (string, error):
//
//	registry.MustImplement(reg, api.Greet, greet)
//
// and a client calls it with client.Call and client.Stream, over HTTPS or a WebSocket:
//
//	s, err := client.Call(ctx, c, api.Greet, api.GreetArgs{Name: "Ann"}) // s is a string
//	for n, err := range client.Stream(ctx, ws, api.Count, api.CountArgs{N: 3}) { ... } // n is an int
//
// So a renamed argument, a changed result type or a misspelt function name breaks the build of
// the server and of every caller, instead of a call in production.
//
// What a caller needs is one concept, a Requirement: a kind of token (Token, the default;
// Public; Session) or a role of a string type (authapi.Role), each stated with Requires, here
// or, for a function registered without a declaration, with registry.Requires:
//
//	var Purge = decl.Func[decl.None, int]("purge", decl.Requires(authapi.RoleAdmin))
//
// A function without arguments takes None. A typed call sends every field of its arguments as
// encoding/json encodes it, so an optional argument should say omitempty or omitzero, or be a
// pointer: a zero that is sent is not a default. Argument types are structs whose json tags name the
// arguments, as registry documents; the declaration says nothing of how the function is
// served, so this package imports only apierr and version: an API's declarations can live in a
// package of their own that clients import without the server's transport, registry or drivers.
//
// Declarations are meant for package variables: Func and Stream panic on an invalid option, as
// regexp.MustCompile does, so that a bad declaration stops the program at start-up.
package decl
