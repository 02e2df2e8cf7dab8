package transport

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/calllink"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
)

// Handler serves a registry over HTTP and WebSocket. It is safe for concurrent use.
type Handler struct {
	reg   *registry.Registry
	cfg   Config
	call  registry.Handler // the interceptor chain around registry.Invoke
	probe registry.Handler // the configured interceptors around allowed, for Exchange.Allowed
	names decl.Names       // cfg.Names, handed to every call

	conns wsConns // the open WebSocket connections
}

// New returns a Handler serving reg. It refuses a registry whose versions are not compatible
// (see registry.Registry.Check) or that serves nothing.
func New(reg *registry.Registry, cfg Config) (*Handler, error) {
	if reg == nil {
		return nil, fmt.Errorf("transport: nil registry")
	}
	if _, ok := reg.Latest(); !ok {
		return nil, fmt.Errorf("transport: the registry has no function")
	}
	if err := reg.Check(); err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	h := &Handler{reg: reg, cfg: cfg.withDefaults()}
	h.names = h.cfg.Names
	ics := []registry.Interceptor{h.observe}
	ics = append(ics, h.cfg.Interceptors...)
	ics = append(ics, requireIdentity, h.idempotent)
	h.call = registry.Chain(registry.Invoke, ics...)
	h.probe = registry.Chain(allowed, h.cfg.Interceptors...)
	return h, nil
}

// requireIdentity is the innermost interceptor: whatever the configured interceptors did, a
// function that needs a token is never run for an anonymous caller. With no authentication
// interceptor configured, only public functions can be called. Then it reads the arguments of
// a large body left for later (registry.Call.ArgsUnread). A call whose context an interceptor
// cancelled with an *apierr.Error as the cause ([context.WithCancelCause]) answers that error.
func requireIdentity(next registry.Handler) registry.Handler {
	return func(ctx context.Context, c *registry.Call) (any, error) {
		if c.Func.Access != decl.Public && c.Identity == nil {
			return nil, apierr.New(apierr.AuthenticationNeeded, "path", c.Func.Name)
		}
		if facts := calllink.Of(c); facts.ReadArgs != nil {
			read := facts.ReadArgs
			facts.ReadArgs = nil
			if err := read(); err != nil {
				return nil, err
			}
		}
		res, err := next(ctx, c)
		if err != nil || c.Sink() != nil {
			// An interceptor that ended the call with a cause of the catalogue (a stream
			// whose token ended) has it answered, whatever the function made of it.
			if ctx.Err() != nil {
				var e *apierr.Error
				if cause := context.Cause(ctx); errors.As(cause, &e) {
					return nil, e
				}
			}
		}
		return res, err
	}
}

// route is what a request path names.
type route struct {
	version version.Version
	kind    string // "call", "stream", "ws", or an endpoint's name (Config.Endpoints)
	name    string // the function, for call and stream
}

// route parses a path below the mount point: [/M.m]/fn, [/M.m]/stream/fn or [/M.m]/ws. An
// unknown version's error comes with the kind of the rest of the path, so that a stream answers
// it as a stream.
func (h *Handler) route(path string) (route, error) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	latest, _ := h.reg.Latest()
	rt := route{version: latest, kind: "call"}
	var verr error
	if len(segs) > 0 && looksLikeVersion(segs[0]) {
		v, err := version.Parse(segs[0])
		if err != nil || !h.reg.Serves(v) {
			verr = apierr.New(apierr.UnknownVersion, "version", segs[0], "versions", h.versionNames())
		}
		rt.version, segs = v, segs[1:]
	}
	switch {
	case len(segs) == 1 && segs[0] == "ws":
		rt.kind = "ws"
	case len(segs) == 1 && h.cfg.Endpoints[segs[0]] != nil:
		rt.kind = segs[0]
	case len(segs) == 2 && segs[0] == "stream" && segs[1] != "":
		rt.kind, rt.name = "stream", segs[1]
	case len(segs) == 1 && segs[0] != "":
		rt.name = segs[0]
	default:
		if verr != nil {
			return rt, verr
		}
		return rt, apierr.New(apierr.UnknownFunction, "path", strings.Join(segs, "/"))
	}
	return rt, verr
}

// looksLikeVersion reports whether a path segment is meant as a version: a digit first and a
// dot. Function names hold no dot, so the two never meet.
func looksLikeVersion(s string) bool {
	return s != "" && s[0] >= '0' && s[0] <= '9' && strings.Contains(s, ".")
}

func (h *Handler) versionNames() []string {
	vs := h.reg.Versions()
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.String()
	}
	return names
}
