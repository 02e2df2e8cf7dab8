package registry

import (
	"context"
	"encoding/json"
	"net"
	"net/http"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/calllink"
	"github.com/fnapi/fnapi/stream"
	"github.com/fnapi/fnapi/version"
	"go.uber.org/zap"
)

// Call is one call of a function, as a transport received it. Interceptors may read it and set
// Identity; they must not keep it after the call returns. How the call arrived (its transport,
// id, address, header...) is the transport's to set: its methods read it.
type Call struct {
	// Func is the function called.
	Func *Func
	// Version is the API version the call was made at.
	Version version.Version
	// Args holds the arguments as JSON values, by name. Tokens (_session, _key) are not in it.
	// Each value must be valid JSON (transports check it as they read): binding trusts it, and
	// hands it as is to parameters of type json.RawMessage.
	Args map[string]json.RawMessage
	// Credentials holds the tokens that came with the call.
	Credentials Credentials
	// Identity is set by the authentication interceptor to who the caller is; nil when anonymous.
	Identity any

	facts calllink.Facts
}

func init() {
	calllink.Of = func(c any) *calllink.Facts { return &c.(*Call).facts }
}

// Transport names how the call arrived: "http", "ws", "mcp", "jsonrpc"; empty for a call made
// without a transport.
func (c *Call) Transport() string { return c.facts.Transport }

// ID is the call's id: the WebSocket call message's, or the JSON-RPC request's; empty over HTTP.
func (c *Call) ID() string { return c.facts.ID }

// RemoteAddr is the client's network address, for rate limits and logs (see Client).
func (c *Call) RemoteAddr() string { return c.facts.RemoteAddr }

// Header returns the request's HTTP header (the handshake's, over WebSocket); nil without one.
// Do not change it, and never log it: it may hold tokens.
func (c *Call) Header() http.Header { return c.facts.Header }

// Meta returns the string values a WebSocket call message carries in its "meta" attribute, for
// interceptors (a trace context per call: traceparent, tracestate); nil over HTTP, where headers
// carry them. Do not change it. Never passed to the function; it never holds tokens the
// framework reads.
func (c *Call) Meta() map[string]string { return c.facts.Meta }

// SetCookie sets ck on the HTTP response, and reports whether it could: not where the transport
// has no response of its own to set it on (WebSocket, MCP, JSON-RPC).
func (c *Call) SetCookie(ck *http.Cookie) bool {
	if c.facts.SetCookie == nil {
		return false
	}
	c.facts.SetCookie(ck)
	return true
}

// Names returns the names of the session cookie, the key header and the mount path the call's
// transport uses; the defaults for a call made without a transport, or c nil.
func (c *Call) Names() decl.Names {
	if c == nil || c.facts.Names == nil {
		return decl.Names{}.OrDefaults()
	}
	return *c.facts.Names
}

// Sink returns where the chunks go in streaming mode; nil in non-streaming mode, where a
// streaming function's chunks are accumulated into its result.
func (c *Call) Sink() stream.Sink { return c.facts.Sink }

// WrapSink replaces the call's sink by wrap(sink), for an interceptor that observes the chunks
// (a trace counting them); it does nothing in non-streaming mode.
func (c *Call) WrapSink(wrap func(next stream.Sink) stream.Sink) {
	if c.facts.Sink != nil {
		c.facts.Sink = wrap(c.facts.Sink)
	}
}

// ArgsUnread reports that arguments are still in the request body: a transport leaves a body
// larger than DefaultMaxBody unread until the call is authenticated, and reads it after the
// interceptors, before the function runs. Interceptors therefore see the arguments of such a
// body only as the function does.
func (c *Call) ArgsUnread() bool { return c.facts.ReadArgs != nil }

// Probe reports a call that only asks whether its caller may call the function (an MCP client
// listing the tools it may call): interceptors decide as for a real call, but count nothing
// (rate limits, unless Metered) and need no arguments; the function does not run.
func (c *Call) Probe() bool { return c.facts.Probe }

// Metered reports a probe that stands for a request of an endpoint's protocol which calls no
// function (an MCP initialize, ping or tools/list): rate limits count it as a call; nothing
// else does (no log line, no metrics, no audit). An interceptor that checks the caller's
// permission to call the function lets it pass (it stands for no call of the function); one
// that authenticates checks its token as for any call.
func (c *Call) Metered() bool { return c.facts.Probe && c.facts.Metered }

// AddLogFields adds fields to the transport's log line of the call (a trace's ids). Never put
// arguments, tokens or bodies in them.
func (c *Call) AddLogFields(fields ...zap.Field) {
	c.facts.LogFields = append(c.facts.LogFields, fields...)
}

// Credentials are the tokens a call carries. Secrets: never log them.
type Credentials struct {
	// Session is the session ID, from the session cookie or the _session argument.
	Session string
	// SessionFromCookie reports that Session came from the cookie, which a browser adds by itself.
	SessionFromCookie bool
	// Key is the API key, from the authorization header or the _key argument.
	Key string
	// CrossSite reports that the browser marked the request cross-site (Sec-Fetch-Site or a
	// foreign Origin).
	CrossSite bool
	// SameOrigin reports that no page of another origin can have made the request: the browser
	// said it comes from the server's own origin or an allowed one (Sec-Fetch-Site:
	// same-origin, or, without Sec-Fetch-Site, such an Origin), or no browser sent it (neither
	// header: every current browser sends one of them on what other pages make).
	SameOrigin bool
}

// Handler answers a call: the function's result, or an error (an *apierr.Error for the client).
// In streaming mode the chunks go to the call's Sink and the result is nil.
type Handler func(ctx context.Context, c *Call) (any, error)

// Interceptor wraps a Handler: it may inspect or change the call, refuse it with an error, or
// observe the result.
type Interceptor func(next Handler) Handler

// Chain returns h wrapped by the interceptors, the first one outermost.
func Chain(h Handler, interceptors ...Interceptor) Handler {
	for i := len(interceptors) - 1; i >= 0; i-- {
		h = interceptors[i](h)
	}
	return h
}

// Client returns what identifies the call's client for rate limits and login throttling: the IP
// address of RemoteAddr, and for IPv6 its /64 network, which one client usually holds whole.
func (c *Call) Client() string {
	host, _, err := net.SplitHostPort(c.facts.RemoteAddr)
	if err != nil {
		host = c.facts.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}

type callKey struct{}

// WithCall returns a context that carries c, for the function and interceptors to read with
// CallFrom. Transports call it once per call.
func WithCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFrom returns the call a context belongs to, or nil.
func CallFrom(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}
