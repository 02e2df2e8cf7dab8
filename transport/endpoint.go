package transport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/calllink"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
	"go.uber.org/zap"
)

// An Endpoint serves another protocol over the handler's functions at a reserved path segment:
// Config.Endpoints["mcp"] answers /mcp and /<M.m>/mcp below the mount point. Packages mcp and
// jsonrpc are the two endpoints fnapi has. The calls an endpoint makes through its Exchange go
// through the same interceptors (authentication, rate limits), logging and metrics as every
// other call.
type Endpoint interface {
	ServeEndpoint(w http.ResponseWriter, r *http.Request, x *Exchange)
}

// Exchange is what an Endpoint is given for one request: the API version the path names, and
// the handler's ways to read the request and to call functions. It is used by the goroutine
// that serves the request and by the calls that goroutine starts.
type Exchange struct {
	// Version is the API version the path named, or the latest.
	Version version.Version
	// Transport names the endpoint in calls and log lines ("mcp", "jsonrpc").
	Transport string

	h *Handler
	w http.ResponseWriter
	r *http.Request
}

// Funcs returns the functions served at the exchange's version, by name.
func (x *Exchange) Funcs() []*registry.Func { return x.h.reg.Funcs(x.Version) }

// Lookup returns the function name at the exchange's version, or nil.
func (x *Exchange) Lookup(name string) *registry.Func { return x.h.reg.Lookup(x.Version, name) }

// Logger returns the handler's logger.
func (x *Exchange) Logger() *zap.Logger { return x.h.cfg.Logger }

// CrossSite reports that a browser sent the request from a foreign origin (neither the server's
// own nor allowed by Config.AllowedOrigins): endpoints refuse it, against DNS rebinding and
// cross-site requests.
func (x *Exchange) CrossSite() bool {
	cross, _ := x.h.site(x.r)
	return cross
}

// ReadBody reads the request body, up to limit bytes (REQUEST-TOO-LARGE past it), within the
// body's time (Config.BodyTimeout and MinBodyRate).
func (x *Exchange) ReadBody(limit int64) ([]byte, error) { return x.h.readAll(x.w, x.r, limit) }

// ReadBodyTo reads the request body into buf, as ReadBody does: an endpoint that lends buf
// from a pool reads a body without allocating it.
func (x *Exchange) ReadBodyTo(buf *bytes.Buffer, limit int64) error {
	return x.h.readTo(x.w, x.r, buf, limit)
}

// NewCall returns a call of f with args, carrying the request's tokens: the session cookie,
// the key header, the _session and _key arguments (taken out of args), and on endpoints an API
// key as Authorization: Bearer.
func (x *Exchange) NewCall(f *registry.Func, args map[string]json.RawMessage) (*registry.Call, error) {
	if args == nil {
		args = make(map[string]json.RawMessage)
	}
	if len(args) > x.h.cfg.MaxArgs {
		return nil, apierr.New(apierr.RequestTooLarge, "limit", x.h.cfg.MaxArgs, "unit", "arguments")
	}
	c := &registry.Call{Func: f, Version: x.Version}
	*calllink.Of(c) = calllink.Facts{
		Transport:  x.Transport,
		RemoteAddr: x.r.RemoteAddr,
		Header:     x.r.Header,
		Names:      &x.h.names,
	}
	if err := x.h.credentials(x.r, c, args); err != nil {
		return nil, err
	}
	if k, ok := bearer(x.r); ok && k != c.Credentials.Key {
		if c.Credentials.Key != "" {
			return nil, conflicting("Authorization", "an API key besides another one")
		}
		c.Credentials.Key = k
	}
	c.Args = args
	return c, nil
}

// bearer returns the token of an Authorization: Bearer header.
func bearer(r *http.Request) (string, bool) {
	v := r.Header.Get("Authorization")
	if len(v) < 7 || !strings.EqualFold(v[:7], "bearer ") {
		return "", false
	}
	return strings.TrimSpace(v[7:]), true
}

// HasToken reports whether the request carries a token in any of the places NewCall reads.
func (x *Exchange) HasToken() bool {
	if _, ok := bearer(x.r); ok {
		return true
	}
	if x.r.Header.Get(x.h.cfg.Names.KeyHeader) != "" {
		return true
	}
	ck, err := x.r.Cookie(x.h.cfg.Names.SessionCookie)
	return err == nil && ck.Value != ""
}

// TokenDigest returns a SHA-256 digest of the tokens the request carries in its headers and
// cookie (none: the digest of nothing), so that an endpoint can bind its own state (an MCP
// session) to the caller without keeping a token.
func (x *Exchange) TokenDigest() [32]byte {
	d := sha256.New()
	for _, v := range []string{x.r.Header.Get("Authorization"), x.r.Header.Get(x.h.cfg.Names.KeyHeader)} {
		d.Write([]byte(v))
		d.Write([]byte{0})
	}
	if ck, err := x.r.Cookie(x.h.cfg.Names.SessionCookie); err == nil {
		d.Write([]byte(ck.Value))
	}
	var sum [32]byte
	d.Sum(sum[:0])
	return sum
}

// Call runs c through the interceptors and the function, with the deadline of a call
// (Config.CallTimeout), or of a stream (Config.StreamTimeout) when c.Sink() is set.
func (x *Exchange) Call(ctx context.Context, c *registry.Call) (any, error) {
	return x.CallWithValue(ctx, c, nil, nil)
}

// CallWithValue is Call with the call's context carrying val under key, as
// [context.WithValue] would, without a context of its own: an endpoint's state for its
// functions (an MCP call's stream). key must be comparable; nil sets nothing.
func (x *Exchange) CallWithValue(ctx context.Context, c *registry.Call, key, val any) (any, error) {
	d := x.h.cfg.CallTimeout
	if c.Sink() != nil {
		d = x.h.cfg.StreamTimeout
	}
	cctx, cancel := newCallCtx(ctx, d, nil) // makes no timer unless the function waits on it
	cctx.key, cctx.val = key, val
	defer cancel()
	return x.h.call(registry.WithCall(cctx, c), c)
}

// Allowed reports, with nil, that the request's caller may call f: the interceptors accept a
// call of f with no arguments marked as a probe (registry.Call.Probe), which runs neither the
// function nor the handler's logging and metrics. Otherwise it returns the interceptors' error
// (API-AUTHENTICATION-NEEDED, PERMISSION-DENIED, ...).
func (x *Exchange) Allowed(ctx context.Context, f *registry.Func) error {
	c, err := x.NewCall(f, nil)
	if err != nil {
		return err
	}
	calllink.Of(c).Probe = true
	_, err = x.h.probe(registry.WithCall(ctx, c), c)
	return err
}

// Admit runs the interceptors on a probe of f, as Allowed does, that stands for one request of
// the endpoint's protocol calling no function (an MCP ping, tools/list): rate limits count it
// as a call (registry.Call.Metered). It returns the probe, whose Identity the interceptors set
// (nil: anonymous) and whose Client names the caller's address, or the interceptors' error
// (RATE-LIMITED, API-AUTHENTICATION-NEEDED, ...). With metered false, nothing counts it: the
// endpoint only learns who calls.
func (x *Exchange) Admit(ctx context.Context, f *registry.Func, metered bool) (*registry.Call, error) {
	c, err := x.NewCall(f, nil)
	if err != nil {
		return nil, err
	}
	calllink.Of(c).Probe, calllink.Of(c).Metered = true, metered
	_, err = x.h.probe(registry.WithCall(ctx, c), c)
	return c, err
}

// allowed is the end of the probe chain: it answers what requireIdentity would.
func allowed(ctx context.Context, c *registry.Call) (any, error) {
	if c.Func.Access != decl.Public && c.Identity == nil {
		return nil, apierr.New(apierr.AuthenticationNeeded, "path", c.Func.Name)
	}
	return nil, nil
}

// serveEndpoint answers a request for a reserved path that names an endpoint.
func (h *Handler) serveEndpoint(w http.ResponseWriter, r *http.Request, rt route) {
	e := h.cfg.Endpoints[rt.kind]
	e.ServeEndpoint(w, r, &Exchange{Version: rt.version, Transport: rt.kind, h: h, w: w, r: r})
}
