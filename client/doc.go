// Package client calls the functions of an fnapi server from Go: over HTTPS with Client, and
// over one multiplexed WebSocket with WSConn.
//
//	c, err := client.New("https://example.net/api", client.WithAPIKey(key), client.WithVersion("1.0"))
//	var sum int
//	err = c.Call(ctx, "add", map[string]int{"a": 2, "b": 3}, &sum)
//	for chunk, err := range c.Stream(ctx, "query", args) {
//		...
//	}
//
// Arguments are any value that encodes as a JSON object (a struct with json tags, a map), or
// nil for none. An error answered by the server comes back as an *apierr.Error with its code
// and attributes; check it with errors.As, or errors.Is(err, declaration) with the code's
// declaration (apierr.NotFound, or one of the API's own).
//
// # Typed calls
//
// A function declared with package decl is called with Call and Stream, over either
// transport (both *Client and *WSConn are a Caller); its arguments, result and chunks are
// then checked by the compiler:
//
//	s, err := client.Call(ctx, c, api.Greet, api.GreetArgs{Name: "Ann"})   // s is a string
//	for row, err := range client.Stream(ctx, ws, api.Query, api.QueryArgs{Expr: "traffic"}) {
//		...                                                               // row is an api.Chunk
//	}
//
// A typed call sends every field of its arguments as encoding/json encodes it: an optional
// argument is left out only when its field says omitempty or omitzero, or is a nil pointer
// (declarations should tag their optional fields so). With WithDeclaredVersions each typed call
// goes to the API version its declaration appeared in, so that a program keeps calling what it
// was built against while the server moves on. A typed call costs what the dynamic call of the
// same arguments costs (BENCHMARKS.md).
//
// Compression: over HTTPS the client leaves Accept-Encoding to net/http, which asks for gzip
// and decodes answers and streams as they arrive (a stream's chunks still come one by one). A
// WSConn offers permessage-deflate without context takeover, so that the server may compress
// its long messages; it sends its own uncompressed.
//
// Conditional reads: a typed Call of a function declared decl.ReadOnly goes over HTTPS as a
// GET with the ETag of its last answer; a 304 is answered from the copy kept (WithReadCache,
// reads.go's doc).
//
// Retries: WithRetries(n) sends a Call again when it got no answer, each attempt with the same
// Idempotency-Key, so that a function that changes things runs once (see retry.go's doc).
//
// Tokens: WithSession sends the session cookie, WithAPIKey the key header, on every request
// and on the WebSocket handshake (so they apply to every call of the connection).
//
// A WSConn runs many calls at once on one connection. Cancelling a call's context sends the
// server cancel(id) for it and returns the context's error at once. A stream's chunks are
// buffered (up to 256 per stream): a stream whose chunks are not consumed holds up the
// connection's reader, and so the other calls, once its buffer is full — range over streams
// promptly, or cancel them.
package client
