package fnapi

import (
	"fmt"
	"maps"
	"time"

	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
	"go.uber.org/zap"
)

// Option configures New.
type Option func(*transport.Config)

// New returns the http.Handler that serves reg, to mount under a prefix with http.StripPrefix.
// It refuses a registry with no function or whose versions are incompatible (see
// registry.Registry.Check). New(reg) with no option is safe: no logging, only public functions
// callable until an authentication interceptor is added with WithInterceptors. Call the
// handler's Shutdown when the server stops, to end its WebSocket connections and wait for them.
func New(reg *registry.Registry, opts ...Option) (*transport.Handler, error) {
	var cfg transport.Config
	for _, o := range opts {
		o(&cfg)
	}
	h, err := transport.New(reg, cfg)
	if err != nil {
		return nil, fmt.Errorf("fnapi: %w", err)
	}
	return h, nil
}

// WithLogger logs one line per call, and internal errors in full, to l. Default: no logging.
func WithLogger(l *zap.Logger) Option {
	return func(c *transport.Config) { c.Logger = l }
}

// WithInterceptors wraps every call in the interceptors, the first outermost. Authentication is
// one (see package auth). Default: none.
func WithInterceptors(ics ...registry.Interceptor) Option {
	return func(c *transport.Config) { c.Interceptors = append(c.Interceptors, ics...) }
}

// WithStrictJSON refuses query-string and form values that are not JSON with INVALID-JSON,
// instead of taking them as plain strings. Default: off.
func WithStrictJSON() Option {
	return func(c *transport.Config) { c.StrictJSON = true }
}

// WithCallTimeout sets the deadline of a non-streaming call. Default: 60 s.
func WithCallTimeout(d time.Duration) Option {
	return func(c *transport.Config) { c.CallTimeout = d }
}

// WithMetrics records per-function metrics into m; serve m.Handler() at a path of your choice.
// Default: none.
func WithMetrics(m *transport.Metrics) Option {
	return func(c *transport.Config) { c.Metrics = m }
}

// WithAllowedOrigins lets browser pages from these origins (scheme://host[:port]) call with
// cookies and open WebSockets. Each allowed origin can act with its visitors' sessions: list
// only sites you trust. Default: only the server's own origin.
func WithAllowedOrigins(origins ...string) Option {
	return func(c *transport.Config) { c.AllowedOrigins = append(c.AllowedOrigins, origins...) }
}

// WithConfig replaces the whole transport configuration, for settings without an option of
// their own. Options after it still apply.
func WithConfig(cfg transport.Config) Option {
	return func(c *transport.Config) { *c = cfg }
}

// WithNames renames the session cookie, the API key header and the path the application mounts
// the handler at (its empty fields keep their defaults: "Svc-Session", "Svc-Authorization",
// "/api"). It is the one place to rename them: auth's login sets that cookie and doc describes
// all three in the OpenAPI document.
func WithNames(n registry.Names) Option {
	return func(c *transport.Config) {
		if n.SessionCookie != "" {
			c.SessionCookie = n.SessionCookie
		}
		if n.KeyHeader != "" {
			c.KeyHeader = n.KeyHeader
		}
		if n.MountPath != "" {
			c.MountPath = n.MountPath
		}
	}
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
	return func(c *transport.Config) {
		m := make(map[string]transport.Endpoint, len(c.Endpoints)+1)
		maps.Copy(m, c.Endpoints)
		m[name] = e
		c.Endpoints = m
	}
}
