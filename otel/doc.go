// Package otel traces fnapi calls with OpenTelemetry: [Interceptor] makes one server span per
// call and continues the W3C trace context the caller sent.
//
// It is a Go module of its own (github.com/fnapi/fnapi/otel), so that the framework's core keeps
// its short dependency list: only applications that trace pull the OpenTelemetry API. Import it
// under another name beside the OpenTelemetry packages:
//
//	import fnotel "github.com/fnapi/fnapi/otel"
//
//	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter))
//	h, err := fnapi.New(reg, fnapi.WithInterceptors(
//		fnotel.Interceptor(fnotel.WithTracerProvider(tp)), authenticator.Interceptor()))
//
// Put it first among the interceptors, so that its span covers authentication and rate limits.
// A request the transport refuses before it makes a call of it (an unknown function or version,
// a body it cannot read, an invalid WebSocket message) runs no interceptor and has no span.
//
// # Spans
//
// A span is named after the function and has kind server. Its attributes say what was called
// and how it ended, never with what arguments or tokens:
//
//	rpc.system        "fnapi"
//	rpc.method        the function's name
//	fnapi.version     the API version of the call ("1.1")
//	fnapi.transport   "http" or "ws"
//	fnapi.stream      true for a streaming call
//	fnapi.call_id     a WebSocket call's id
//	fnapi.code        the error code, "OK" for a result
//	fnapi.chunks      how many chunks a streaming call sent
//
// The span's status is Error for the codes that are the server's fault (HTTP status 500 and
// above: INTERNAL-ERROR, TIMEOUT, UNAVAILABLE), as OpenTelemetry's conventions say for server
// spans; a caller's mistake (INVALID-ARGUMENT, NOT-FOUND, ...) leaves it unset and shows in
// fnapi.code. Each chunk of a stream is an event "chunk" with its index (0, 1, ...) but not its
// content; the SDK keeps the first 128 events of a span (OTEL_SPAN_EVENT_COUNT_LIMIT), so a long
// follow stream keeps its first chunks as events and its total in fnapi.chunks.
//
// # Trace context
//
// The parent comes from the call's carrier, read with the propagator (default: W3C Trace
// Context, the traceparent and tracestate headers):
//
//   - over HTTP, the request's headers;
//   - over the WebSocket, the handshake's headers, for every call of the connection;
//   - for one WebSocket call, the "meta" attribute of its call message, whose entries override
//     the handshake's: {"id": 1, "call": "query", "args": {...},
//     "meta": {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}.
//     A server without tracing ignores meta, so clients may always send it.
//
// The function's context holds the span: spans the function starts (a database query) are its
// children, and trace.SpanContextFromContext finds its ids.
//
// # Logs
//
// A call whose span has a valid context adds trace_id and span_id to the transport's log line of
// the call (registry.Call.AddLogFields), so that a log line leads to its trace.
//
// # Cost
//
// With a tracer that does not sample the call, the interceptor costs the propagator's read and
// a non-recording span; BENCHMARKS.md has the figures.
package otel
