// Package doc describes an API from its registry: the result of the built-in doc function.
//
// Register adds the public function doc to a registry. Called at a version, it answers an
// object with the version served, every version, and for each function its name, description,
// since, auth (none, token or session), arguments (a JSON Schema 2020-12 object schema),
// result schema, streaming (the chunk schema and how chunks accumulate) and error codes.
// With the argument format set to "openapi", it answers an OpenAPI 3.1 document of the same API.
package doc
