// Package fnapi puts a Go program's functions on the network: register plain Go functions,
// and fnapi serves each one over HTTPS (GET and POST, query string, forms and JSON bodies), as a
// stream (NDJSON or Server-Sent Events), and over one multiplexed WebSocket, with per-version
// routing, structured errors and a generated description of the API.
//
// A first server:
//
//	reg := registry.New()
//	fnapi.MustRegisterBuiltins(reg) // echo, doc, get-api-version, cancel
//	reg.MustRegister("add", func(a, b int) int { return a + b },
//		registry.Args("a", "b"), registry.Requires(decl.Public))
//	api, err := fnapi.New(reg)
//	if err != nil {
//		log.Fatal(err)
//	}
//	http.Handle("/api/", http.StripPrefix("/api", api))
//
// GET /api/add?a=2&b=3 then answers {"type":"result","result":5}.
//
// The packages below fnapi hold the parts: registry (functions, their shapes and schemas),
// transport (HTTP, streams, WebSocket), stream (what a streaming function sends), version,
// apierr (the error type and codes), doc (the API description), auth (users, sessions and API
// keys), client (a Go client) and decl (a function declared once with its Go types, which
// registry.Implement serves and client.Call calls, both checked by the compiler).
//
// # Calling convention
//
// Under its mount point the handler answers /<fn> and /<M.m>/<fn> (GET and POST; arguments as
// JSON values in the query string, URL-encoded or multipart forms, or a JSON object body),
// /stream/<fn> (chunk messages then end, as NDJSON or Server-Sent Events), /ws (one multiplexed
// WebSocket for many concurrent calls and streams) and /doc (the API described). Every answer
// is a JSON message: {"type":"result","result":...}, {"type":"error","error":CODE,...},
// {"type":"chunk","chunk":...} or {"type":"end"}.
//
// # Safe defaults
//
// A function needs a token unless registered with registry.Requires(decl.Public), and
// without an authentication interceptor (package auth) no token is ever accepted: a new server
// is closed until it is configured. Server serves HTTPS only. Every limit (body size, URL
// length, argument count, call deadline, WebSocket message size and calls in flight) has a
// default, each set by an option of New (see Option).
package fnapi
