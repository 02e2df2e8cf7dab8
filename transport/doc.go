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
// # Responses
//
// Every response body is JSON: one message, {"type": "result", "result": ...} with status 200,
// or {"type": "error", "error": CODE, ...} with the status of its code (see apierr.Code.Status).
// An INTERNAL-ERROR never carries internals: the log has them.
//
// # Limits
//
// Every limit has a default (see Config) and answers a structured error: REQUEST-TOO-LARGE with
// its limit for bodies, arguments, URLs and argument counts; TIMEOUT past the call deadline.
package transport
