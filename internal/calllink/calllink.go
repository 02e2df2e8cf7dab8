// Package calllink lets the transports set what a registry.Call keeps out of its API: how the
// call arrived (its transport facts), whether it is a probe, and the log fields interceptors
// added. Package registry fills in Of when it is initialised.
package calllink

import (
	"net/http"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/stream"
	"go.uber.org/zap"
)

// Facts are what a transport knows of a call; registry.Call's methods read them.
type Facts struct {
	// Transport names how the call arrived: "http", "ws", "mcp", "jsonrpc".
	Transport string
	// ID is the call's id (WebSocket, JSON-RPC); empty over HTTP.
	ID string
	// RemoteAddr is the client's network address.
	RemoteAddr string
	// Header is the request's HTTP header (the handshake's, over WebSocket).
	Header http.Header
	// Meta holds the string values of a WebSocket call message's "meta" attribute.
	Meta map[string]string
	// SetCookie sets a cookie on the HTTP response; nil where the transport cannot.
	SetCookie func(*http.Cookie)
	// Names are the transport's names, shared by every call.
	Names *decl.Names
	// Sink receives the chunks in streaming mode; nil in non-streaming mode.
	Sink stream.Sink
	// ReadArgs, when not nil, reads the arguments still in the request body into the call's
	// Args; the transport calls it (once) after the interceptors.
	ReadArgs func() error
	// Probe marks a call that only asks whether its caller may call the function.
	Probe bool
	// Metered marks a probe that stands for a request of an endpoint's protocol: rate limits
	// count it.
	Metered bool
	// LogFields are the fields interceptors added to the call's log line.
	LogFields []zap.Field
	// Ran is set by registry.Invoke once the arguments are bound, as the function starts.
	Ran bool
	// Idempotency is the transport's own state of a call made with an Idempotency-Key.
	Idempotency any
}

// Of returns the facts of c, a *registry.Call, to read or set.
var Of func(c any) *Facts
