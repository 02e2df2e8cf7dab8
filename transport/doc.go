// Package transport serves a registry's functions over HTTP, as streams over HTTP, and over a
// multiplexed WebSocket.
//
// A Handler is an http.Handler meant to be mounted under a prefix with http.StripPrefix
// (/api in the examples). Below that prefix it answers:
//
//	/<fn>                  call fn at the latest version (GET or POST)
//	/<M.m>/<fn>            call fn at version M.m
//	/stream/<fn>           stream fn (NDJSON, or Server-Sent Events with Accept: text/event-stream)
//	/<M.m>/stream/<fn>
//	/ws, /<M.m>/ws         the WebSocket endpoint
//	/mcp, /jsonrpc, ...    an Endpoint of Config.Endpoints (packages mcp and jsonrpc), at a
//	                       version too (/<M.m>/mcp), when configured
//
// # Arguments over HTTP
//
// Arguments come from the query string, and for POST also from the body: a URL-encoded form, a
// multipart form (each part, field or file, is one argument) or a JSON object with
// Content-Type: application/json. In the query string and the forms each value is JSON
// (?n=3&tags=["a"]); a value that is not valid JSON is taken as a plain string (?user=admin),
// unless Config.StrictJSON is set, which answers INVALID-JSON naming the argument. Arguments
// from the query string and the body are merged; the same name twice is INVALID-ARGUMENT.
// The arguments _session and _key carry tokens; they never reach the function.
//
// A JSON body is checked and split into its arguments in one pass that decodes none of them
// (a body that is not valid JSON is INVALID-JSON, as encoding/json would have it): each argument
// is then decoded once, into its parameter's type. An argument of type json.RawMessage is not
// decoded at all, and one of type []json.RawMessage is only split into its elements (package
// registry), so a function that takes a large argument, such as a batch of records, parses it
// itself in one more pass and the framework's share is one scan of the body.
//
// # Responses
//
// Every response body is JSON: one message, {"type": "result", "result": ...} with status 200,
// or {"type": "error", "error": CODE, ...} with the status of its code (see apierr.Declaration.Status).
// An INTERNAL-ERROR never carries internals: the log has them.
//
// # Streams
//
// A stream answers status 200 and a body of messages: chunk messages, then end; or one error
// message and no end, also for errors found before the function ran (an unknown function or
// version, bad arguments, a missing token). Only a request no stream can answer gets a plain
// error with its own status: a method other than GET and POST (405) and a URL over
// Config.MaxURLBytes (413). The body is NDJSON
// (application/x-ndjson, one message per line), or Server-Sent Events when the request accepts
// text/event-stream (one data field per message, and a comment line every
// WSConfig.PingInterval on an idle stream). Each message is on its way as soon as it is
// produced: a flusher goroutine flushes whatever was written since its last flush, so a fast
// producer's messages share TLS records and system calls while a lone one is not held. A stream
// ends when the client goes away (the function's context is done), past Config.StreamTimeout
// (TIMEOUT), or when a write blocks longer than WSConfig.WriteTimeout.
//
// # Conditional reads and idempotent writes
//
// A GET of a function declared registry.ReadOnly answers a strong ETag (a 128-bit hash of the
// message; "-gzip" appended for the gzipped representation) and Cache-Control: no-cache; one
// whose If-None-Match holds the tag answers 304 Not Modified without a body (etag.go). A call
// of a function that changes things with an Idempotency-Key runs once per caller and key for
// IdempotencyTTL: a repeat gets the first answer again with Idempotent-Replayed: true, or
// IDEMPOTENCY-KEY-REUSED (422) when its arguments differ, and waits while the first call
// runs (idempotency.go has the rules: what is kept, who the caller is). Config.Idempotency is
// where the answers are kept: a MemoryIdempotency by default, bounded by IdempotencyLimits.
//
// # Compression
//
// For a client whose Accept-Encoding allows gzip, a JSON answer of at least
// Config.CompressMinBytes (1 KiB) goes gzipped, and so does every stream: a stream cannot know
// its size, so the threshold applies to each flush instead. Each flush's text is compressed on
// its own by a compressor taken from a pool and given back (a compressor holds 1.2 MB: an open
// stream holds none between flushes), then flushed with the stream, so a live stream still
// arrives message by message, keepalives included; a flush under the threshold goes as a
// stored block (its bytes as they are, 10 bytes of framing), where compressing it alone would
// cost more CPU than it saves: below a few hundred bytes the CPU per byte saved rises steeply,
// and a message under about 1.4 KB goes in one TCP segment and one TLS record either way.
// Compressed answers say Vary: Accept-Encoding.
//
// On the WebSocket, a client that offers permessage-deflate gets each message of at least
// WSConfig.CompressMinBytes (1 KiB) compressed on its own: without context takeover, which
// would keep a 1.2 MB compressor and a 32 KB window per connection. Its own compressed
// messages are read the same as plain ones.
//
// Never compressed, over any transport: the answers of functions declared registry.NoStore
// (login, key creation), which put a secret next to text the caller chose, so that the
// compressed size cannot leak the secret (BREACH). Over the WebSocket they go uncompressed on
// a connection that compresses, and share no compression with other messages.
//
// Turning it off: Config.CompressMinBytes negative (answers and streams),
// WSConfig.CompressMinBytes negative (the extension is not negotiated). BENCHMARKS.md has the
// bytes and CPU that set the thresholds.
//
// # WebSocket
//
// A call message is {"id": 1, "call": "fn", "args": {...}}, or with "stream" instead of
// "call" for a streaming call; the id is a non-empty string or a number, args an object ({}
// for none); an optional "meta" object of strings reaches interceptors as registry.Call.Meta
// (a trace context per call: {"traceparent": "00-...", "tracestate": "..."}); other attributes
// are ignored. Every answer carries the id as a string (1 becomes
// "1"). A message that is not a valid call answers INVALID-MESSAGE with a reason (and the id
// when it could be read) and the connection stays open; a message over
// WSConfig.MaxMessageBytes closes it with status 1009.
//
// Calls run concurrently and their answers interleave. Up to WSConfig.MaxInFlight calls run at
// once; past that the server reads no more messages until one finishes. An id still running
// cannot be reused (DUPLICATE-ID). The built-in function cancel(id) (see CancelCall) cancels
// a running call of the same connection, which then answers CANCELLED with its own id; cancel
// takes no slot, so a client with MaxInFlight calls running can still cancel one. Closing the
// connection cancels all its calls. A call has Config.CallTimeout, a stream
// Config.StreamTimeout.
//
// Calls run in goroutines the connection reuses (at most MaxInFlight). Past MaxInFlight, as many
// calls wait for a slot, each in a goroutine of its own, and the connection reads on; a call that
// finds no room among those waiting for a second is refused with RATE-LIMITED. So a connection
// whose slots are held by long streams still reads a cancel, a close, a ping's answer. Their messages go to the
// connection's outgoing queue; one writer sends all that is queued in one socket write (one
// TLS record and system call for many messages), without waiting for more. The queue holds at
// most 256 KiB: past that a call's answer or a stream's Send waits. A socket write that blocks
// longer than WSConfig.WriteTimeout (a client that does not read) closes the connection, so
// memory stays bounded. Write timeouts are socket deadlines, moved when less than half the
// timeout is left: a blocked write ends after between half and all of WriteTimeout. Idle
// connections are pinged every WSConfig.PingInterval; a peer that does not answer in
// WriteTimeout is disconnected.
//
// # Performance
//
// The call path avoids work per call where it can: a call's context makes its deadline timer
// only when the function asks for Done; WebSocket call messages of the usual shape are read in
// one pass without reflection (others by encoding/json); the registry reuses its argument
// lists. BENCHMARKS.md has the figures and what is still a floor (TLS, one system call per
// batch, reflect.Value.Call).
//
// http.Server.Shutdown does not close hijacked connections; the handler hooks itself into the
// shutdown of every http.Server it accepts a WebSocket through (RegisterOnShutdown): new calls
// then answer CANCELLED (reason "the server is shutting down"), the calls running get
// WSConfig.ShutdownTimeout to finish before they are cancelled, and each connection closes with
// status 1001. Handler.Shutdown does the same with a context of your own, and waits for the
// connections to end.
//
// The handshake's tokens (the session cookie, the key header, _session and _key in the URL's
// query) apply to every call of the connection; _session or _key in a call's args replace them
// for that call. A handshake whose Origin is neither the server's own (scheme included: over
// TLS, http://host is another origin) nor one of Config.AllowedOrigins is refused with status
// 403 (cross-site WebSocket hijacking). A handshake without Origin comes from no browser: its
// cookie counts as any other token.
//
// # Limits
//
// Every limit has a default (see Config) and answers a structured error: REQUEST-TOO-LARGE with
// its limit for bodies, arguments, URLs and argument counts; TIMEOUT past the call deadline.
//
// A function's body limit is its own (registry.MaxBody, default 1 MiB). For a function that
// needs a token and takes more, a body over registry.DefaultMaxBody is not read while the call
// is authenticated: the interceptors run on the tokens of the header, the cookie and the query
// string, and the body is read after them (registry.Call.ArgsUnread), so a caller without a valid
// token never has the server read more than the default. A body of unknown length (chunked) is
// read up to the default to tell. A token inside such a large body is refused.
//
// A body must arrive within Config.BodyTimeout plus its length at Config.MinBodyRate; the
// connection's read deadline enforces it while the body is read and is lifted afterwards, so
// streams are not cut.
//
// Two different tokens of one kind in one request (two session cookies, two key headers, the
// cookie and _session, the header and _key) answer INVALID-ARGUMENT, "conflicting
// credentials". Every answer carries X-Content-Type-Options: nosniff, and the answers of
// functions marked registry.NoStore Cache-Control: no-store.
//
// # Reading the code
//
// request.go follows one HTTP call top to bottom, naming the file of each step (arguments,
// body, credentials, call, answer); body.go is where a body is read, with its time, its size
// and the token-first rule above. ws.go tours the WebSocket subsystem, the files ws*.go. A
// stream encoding is a framing (framing.go) of a media type of package stream.
package transport
