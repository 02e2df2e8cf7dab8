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
// Identity; they must not keep it after the call returns.
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
	// Transport names how the call arrived: "http", "ws", "mcp", "jsonrpc".
	Transport string
	// ID is the WebSocket call's id; empty over HTTP.
	ID string
	// RemoteAddr is the client's network address, for rate limits and logs.
	RemoteAddr string
	// Header holds the request's HTTP header (the handshake's, over WebSocket). Never log it:
	// it may hold tokens.
	Header http.Header
	// Meta holds the string values a WebSocket call message carries in its "meta" attribute, for
	// interceptors (a trace context per call: traceparent, tracestate); nil over HTTP, where
	// headers carry them. Never passed to the function; it may be empty but never holds tokens
	// the framework reads.
	Meta map[string]string
	// SetCookie sets a cookie on the HTTP response; nil where the transport cannot (WebSocket).
	SetCookie func(*http.Cookie)
	// Names are the transport's names of the session cookie, the key header and the mount
	// path (read them with NamesOf). Shared by every call: do not change.
	Names *decl.Names
	// Sink receives the chunks in streaming mode; nil in non-streaming mode.
	Sink stream.Sink
	// ReadArgs, when not nil, reads the arguments still in the request body into Args. A
	// transport leaves a body larger than DefaultMaxBody unread until the call is
	// authenticated; it calls ReadArgs after the interceptors, before the function runs.
	// Interceptors therefore see the arguments of such a body only as the function does.
	ReadArgs func() error

	probe     bool
	logFields []zap.Field
}

// Probe reports a call that only asks whether its caller may call the function (an MCP client
// listing the tools it may call): interceptors decide as for a real call, but count nothing
// (rate limits) and need no arguments; the function does not run.
func (c *Call) Probe() bool { return c.probe }

// AddLogFields adds fields to the transport's log line of the call (a trace's ids). Never put
// arguments, tokens or bodies in them.
func (c *Call) AddLogFields(fields ...zap.Field) { c.logFields = append(c.logFields, fields...) }

func init() {
	calllink.MarkProbe = func(c any) { c.(*Call).probe = true }
	calllink.LogFields = func(c any) []zap.Field { return c.(*Call).logFields }
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
	host, _, err := net.SplitHostPort(c.RemoteAddr)
	if err != nil {
		host = c.RemoteAddr
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

// NamesOf returns the names of the call c belongs to: the transport's, or the defaults for a
// call made without a transport (c nil, or its Names unset).
func NamesOf(c *Call) decl.Names {
	if c == nil || c.Names == nil {
		return decl.Names{}.OrDefaults()
	}
	return *c.Names
}
