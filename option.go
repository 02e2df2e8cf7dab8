package fnapi

import (
	"maps"
	"time"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
	"go.uber.org/zap"
)

// Option configures New. Each sets one setting, whatever the options before or after it.
type Option func(*config)

type config struct {
	t       transport.Config
	metrics bool
}

// WithLogger logs one line per call, and internal errors in full, to l. Default: no logging.
func WithLogger(l *zap.Logger) Option {
	return func(c *config) { c.t.Logger = l }
}

// WithInterceptors adds interceptors around every call, the first outermost (after those of
// earlier WithInterceptors). Authentication is one (see package auth). Default: none.
func WithInterceptors(ics ...registry.Interceptor) Option {
	return func(c *config) { c.t.Interceptors = append(c.t.Interceptors, ics...) }
}

// WithStrictJSON refuses query-string and form values that are not JSON with INVALID-JSON,
// instead of taking them as plain strings. Default: off (?user=admin is the string "admin").
func WithStrictJSON() Option {
	return func(c *config) { c.t.StrictJSON = true }
}

// WithCallTimeout sets the deadline of a non-streaming call; past it the function's context is
// done and the caller gets TIMEOUT. Default: 60 s.
func WithCallTimeout(d time.Duration) Option {
	return func(c *config) { c.t.CallTimeout = d }
}

// WithStreamTimeout sets the longest a stream may run before it ends with TIMEOUT. Default: 1 h.
func WithStreamTimeout(d time.Duration) Option {
	return func(c *config) { c.t.StreamTimeout = d }
}

// WithBodyTimeout bounds the time to read a request body: it must arrive within timeout plus
// its length at minRate bytes a second, or the call answers TIMEOUT (408) and the connection is
// closed. Zero keeps a default. Defaults: 30 s and 64 KiB/s (a 1 MiB body has 46 s).
func WithBodyTimeout(timeout time.Duration, minRate int64) Option {
	return func(c *config) { c.t.BodyTimeout, c.t.MinBodyRate = timeout, minRate }
}

// WithMaxURLBytes limits the length of a request URL's path and query (REQUEST-TOO-LARGE
// past it). Default: 16 KiB.
func WithMaxURLBytes(n int) Option {
	return func(c *config) { c.t.MaxURLBytes = n }
}

// WithMaxArgs limits the number of arguments of one call (REQUEST-TOO-LARGE past it).
// Default: 256.
func WithMaxArgs(n int) Option {
	return func(c *config) { c.t.MaxArgs = n }
}

// WithCompressMinBytes sets the size from which a JSON answer is gzipped for a client that
// accepts it; NDJSON and Server-Sent Events streams are gzipped whatever their size. Negative:
// neither. Answers of registry.NoStore functions are never compressed (BREACH). Default: 1024.
func WithCompressMinBytes(n int) Option {
	return func(c *config) { c.t.CompressMinBytes = n }
}

// WithMetrics counts calls, errors by code, latency, calls in flight, chunks and connections
// per function, for Handler.Metrics to serve. Default: off.
func WithMetrics() Option {
	return func(c *config) { c.metrics = true }
}

// WithAllowedOrigins lets browser pages from these origins (scheme://host[:port]) call with
// cookies and open WebSockets. Each allowed origin can act with its visitors' sessions: list
// only sites you trust. Default: only the server's own origin.
func WithAllowedOrigins(origins ...string) Option {
	return func(c *config) { c.t.AllowedOrigins = append(c.t.AllowedOrigins, origins...) }
}

// WithNames renames the session cookie, the API key header and the path the application mounts
// the handler at (an empty field keeps its default: "Svc-Session", "Svc-Authorization",
// "/api"). It is the one place to rename them: the transport reads the tokens under them,
// auth's login sets that cookie, doc describes all three, and a Go client is given the same
// value (client.WithNames).
func WithNames(n decl.Names) Option {
	return func(c *config) { c.t.Names = n }
}

// WithMCP serves the functions as the tools of a Model Context Protocol server (specification
// 2025-11-25, Streamable HTTP transport) at /mcp and /<M.m>/mcp, with the resources and
// prompts of opts (see package mcp). Default: off.
func WithMCP(opts mcp.Options) Option {
	return withEndpoint("mcp", mcp.New(opts))
}

// WithJSONRPC serves the functions as JSON-RPC 2.0 methods at /jsonrpc and /<M.m>/jsonrpc (see
// package jsonrpc). Default: off.
func WithJSONRPC(opts jsonrpc.Options) Option {
	return withEndpoint("jsonrpc", jsonrpc.New(opts))
}

func withEndpoint(name string, e transport.Endpoint) Option {
	return func(c *config) {
		m := make(map[string]transport.Endpoint, len(c.t.Endpoints)+1)
		maps.Copy(m, c.t.Endpoints)
		m[name] = e
		c.t.Endpoints = m
	}
}
