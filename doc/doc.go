// Package doc describes an API from its registry: the result of the built-in function doc, and
// an OpenAPI 3.1 document of the same API.
//
// Register adds the public function doc to a registry. Called at a version (/api/1.0/doc, or
// /api/doc for the latest), it answers an API: the version served, every version, and for each
// function its name, description, since (and until, when a later version removes it), auth
// (none, token or session), arguments (a JSON Schema 2020-12 object schema: properties with
// their descriptions and defaults, required in declaration order), result schema ({"type":
// "null"} when the function returns nothing), streaming (the chunk schema and how chunks
// accumulate: append, replace or custom) and errors (the codes it states it may answer,
// registry.Errors). The API's errors describe the framework's codes, which any function may
// answer, and its declared_errors the codes of the application's own that the functions of the
// version state, each once: its HTTP status, when it is answered, its extra attributes and
// their JSON types, all as its apierr.Declaration says. The framework learns an application's
// codes from the functions that state them; a code no function states is not described.
//
// With the argument format set to "openapi", doc answers the OpenAPI 3.1 document of the same
// version (see OpenAPI): paths /<fn> with GET (query parameters holding JSON) and POST (a JSON
// or form body), /stream/<fn> for streaming functions, result and error message schemas (and
// for each code a function states, the schema Error-<CODE> and a response under its status), and
// the places a token may travel as security schemes, and /ws for the WebSocket (its messages as
// the component schemas WSCall and WSAnswer). A GET of a read-only function takes If-None-Match
// and answers ETag, or 304; a call of a function that changes things and needs a token takes
// Idempotency-Key and answers Idempotent-Replayed, or 422 (see package transport). Its server URL is {base}/<M.m>, where the
// variable base defaults to /api (MountPath changes it). Boolean schemas are written as objects
// ({} for true), which generators built on kin-openapi (oapi-codegen) need; openapi-typescript
// and oapi-codegen are checked against the document in the data service's tests.
//
// # Descriptions
//
// Descriptions come from the code: the registry.Describe option and jsonschema description
// tags, else Go doc comments. A deployed binary has no source tree, so comments are read at
// build time by the command doc/gencomments, run by go generate, and compiled in with go:embed:
//
//	//go:generate go run github.com/fnapi/fnapi/doc/gencomments -out comments.json .
//	//go:embed comments.json
//	var comments []byte
//
//	reg := registry.New(registry.Comments(comments))
//
// A function's own comment is found by the name the Go runtime gives it, so package-level
// functions and method values get theirs; a function literal has no doc comment, and needs
// registry.Describe. Types and struct fields (arguments, results, chunks) are matched by their
// package path and name. Run go generate again when comments change (a test comparing the file
// with a fresh run keeps it honest).
package doc
