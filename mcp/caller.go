package mcp

import (
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/calllink"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
	"github.com/fnapi/fnapi/version"
)

// Who calls: authentication, the caller a request counts against, rate limits, DNS rebinding.

// callsFunction reports the methods whose request calls a function (through the
// interceptors, which count it); they count here only when they do not. It and the other sets
// of methods are switches: a map costs a hash of the method on each request.
func callsFunction(method string) bool {
	switch method {
	case "tools/call", "resources/read", "prompts/get":
		return true
	}
	return false
}

// count counts one request of the caller against the rate limits of the interceptors: their
// RATE-LIMITED error, or nil.
func (s *Server) count(ctx context.Context, x *transport.Exchange) error {
	probe := s.probeOf(x)
	if probe == nil {
		return nil
	}
	_, err := x.Admit(ctx, probe, true)
	if apierr.CodeOf(err) != apierr.RateLimited.Code() {
		return nil // the tokens were checked already
	}
	return err
}

// refuse answers a request past the rate limit: HTTP 429 with Retry-After, and the JSON-RPC
// error RATE-LIMITED (data: its retry_after). req is nil for a body that is no single request.
func refuse(w http.ResponseWriter, req *jsonrpc.Request, err error) {
	e := apierr.From(err)
	if v, ok := e.LookupAttr("retry_after"); ok {
		w.Header().Set("Retry-After", fmt.Sprint(v))
	}
	je := jsonrpc.FromAPI(e)
	if req == nil {
		httpError(w, e.Status(), je)
		return
	}
	httpError(w, e.Status(), withID(req, je))
}

// authenticate refuses a request whose tokens do not authenticate, when the version serves a
// function that needs a token: it probes the first function any token admits, and returns
// the probe (nil when every function is public). A request without a token is refused too,
// unless every function of the version is public.
func (s *Server) authenticate(ctx context.Context, x *transport.Exchange) (*registry.Call, error) {
	probe := s.probeOf(x)
	if probe == nil || probe.Access == decl.Public { // every function is public: no token counts
		return nil, nil
	}
	c, err := x.Admit(ctx, probe, false)
	switch apierr.CodeOf(err) {
	case apierr.AuthenticationNeeded.Code(), apierr.InvalidCredentials.Code():
		return nil, err
	}
	return c, nil
}

// callerOf names whom a request counts against, for the bound on sessions per caller, from
// its authentication probe: the user (an identity that is a fmt.Stringer, as auth.Identity
// names its user), the tokens (another identity), or the client's address (anonymous: IPv6 by
// its /64).
func callerOf(probe *registry.Call, r *http.Request, x *transport.Exchange) string {
	if probe == nil {
		probe = new(registry.Call)
		calllink.Of(probe).RemoteAddr = r.RemoteAddr
	}
	switch id := probe.Identity.(type) {
	case nil:
		return "address " + probe.Client()
	case fmt.Stringer:
		return "user " + id.String()
	}
	d := x.TokenDigest()
	return "tokens " + hex.EncodeToString(d[:])
}

// probeOf returns the first function of the exchange's version that any token admits, else
// its first function (every one is public), or nil: found once per version.
func (s *Server) probeOf(x *transport.Exchange) *registry.Func {
	if ps := s.probes.Load(); ps != nil {
		for _, p := range *ps {
			if p.v == x.Version {
				return p.f
			}
		}
	}
	var probe *registry.Func
	funcs := x.Funcs()
	for _, f := range funcs {
		if f.Access == decl.Token {
			probe = f
			break
		}
	}
	if probe == nil && len(funcs) > 0 {
		probe = funcs[0]
	}
	for { // copied on write: a server has a few versions, looked through faster than a map
		old := s.probes.Load()
		var ps []versionProbe
		if old != nil {
			ps = slices.Clone(*old)
		}
		ps = append(ps, versionProbe{x.Version, probe})
		if s.probes.CompareAndSwap(old, &ps) {
			return probe
		}
	}
}

// versionProbe is the probe of a version (see probeOf).
type versionProbe struct {
	v version.Version
	f *registry.Func
}

// rebound reports a request that reached a loopback address with a Host other than a loopback
// name: a page whose own name was made to resolve to this machine (DNS rebinding), which its
// browser then deems same-origin.
func rebound(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	host, _, err := net.SplitHostPort(local.String())
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return false
	}
	name := r.Host
	if h, _, err := net.SplitHostPort(name); err == nil {
		name = h
	}
	name = strings.Trim(name, "[]")
	if strings.EqualFold(name, "localhost") {
		return false
	}
	ip := net.ParseIP(name)
	return ip == nil || !ip.IsLoopback()
}
