package transport

import (
	"encoding/json"
	"github.com/fnapi/fnapi/internal/bufpool"
	"net/http"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/internal/calllink"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
	"go.uber.org/zap"
)

// One HTTP call, top to bottom. ServeHTTP (this file) bounds the URL and routes the path
// (handler.go), handing the WebSocket to serveWS (ws.go) and an endpoint to serveEndpoint
// (endpoint.go). A call of a function then goes, in order:
//
//  1. newCall (this file) reads the query string's arguments (argReader.query, args.go);
//  2. readBody (body.go) reads a POST's body, once, within its time and size, into the
//     arguments by its Content-Type (argReader.parse, args.go), or leaves a large one for
//     after authentication (registry.Call.ArgsUnread);
//  3. credentials (credentials.go) moves the tokens (cookie, header, _session, _key) into the
//     call;
//  4. the interceptor chain runs the call: observe (observe.go), the configured interceptors,
//     requireIdentity (handler.go, which reads a body left for later), the function;
//  5. the answer is written: writeResult or writeError (respond.go), or for a stream
//     serveStream (stream.go) in its framing (framing.go).

// nosniff is the value of X-Content-Type-Options on every answer: browsers must not read an
// answer as anything but its Content-Type says (a JSON error as HTML, say).
var nosniff = []string{"nosniff"}

// noStore is the Cache-Control of the answers of functions marked registry.NoStore.
var noStore = []string{"no-store"}

// ServeHTTP answers one request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header()["X-Content-Type-Options"] = nosniff
	if n := len(r.URL.EscapedPath()) + len(r.URL.RawQuery); n > h.cfg.MaxURLBytes {
		writeError(w, apierr.New(apierr.RequestTooLarge, "limit", h.cfg.MaxURLBytes))
		return
	}
	rt, err := h.route(r.URL.Path)
	if err != nil {
		h.fail(w, r, rt, err)
		return
	}
	if rt.kind == "ws" {
		h.serveWS(w, r, rt.version)
		return
	}
	if _, ok := h.cfg.Endpoints[rt.kind]; ok {
		h.serveEndpoint(w, r, rt)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		writeError(w, apierr.New(apierr.MethodNotAllowed, "allowed", []string{"GET", "POST"}))
		return
	}
	f := h.reg.Lookup(rt.version, rt.name)
	if f == nil {
		h.fail(w, r, rt, apierr.New(apierr.UnknownFunction, "path", rt.name))
		return
	}
	if f.NoStore {
		w.Header()["Cache-Control"] = noStore
	}
	c, err := h.newCall(w, r, f, rt.version)
	if err != nil {
		h.fail(w, r, rt, err)
		return
	}
	if rt.kind == "stream" {
		h.serveStream(w, r, c)
		return
	}
	ic, err := idempotencyKey(r, f)
	if err != nil {
		writeError(w, err)
		return
	}
	ctx, cancel := newCallCtx(r.Context(), h.cfg.CallTimeout, nil)
	defer cancel()
	if ic != nil {
		calllink.Of(c).Idempotency = ic
		defer h.abandon(ic)
	}
	res, err := h.call(registry.WithCall(ctx, c), c)
	if ic != nil && h.finishIdempotent(ctx, w, r, c, ic, res, err) {
		return
	}
	if err != nil {
		writeError(w, err)
		return
	}
	if !etagged(r, f) {
		if err := writeResult(w, res, h.compressMin(w, r, f)); err != nil {
			h.cfg.Logger.Error("result does not encode as JSON", zap.String("function", f.Name), zap.Error(err))
		}
		return
	}
	b := bufpool.Get()
	defer bufpool.Put(b)
	if err := appendResult(b, res); err != nil {
		writeError(w, apierr.New(apierr.Internal))
		h.cfg.Logger.Error("result does not encode as JSON", zap.String("function", f.Name), zap.Error(err))
		return
	}
	writeTagged(w, r, f, b.Bytes(), h.compressMin(w, r, f))
}

// newCall makes the call of f that r asks for: its arguments from the query string, then from
// the body (see readBody for when a body is read later), then its tokens.
func (h *Handler) newCall(w http.ResponseWriter, r *http.Request, f *registry.Func, v version.Version) (*registry.Call, error) {
	c := &registry.Call{Func: f, Version: v}
	*calllink.Of(c) = calllink.Facts{
		Transport:  "http",
		RemoteAddr: r.RemoteAddr,
		Header:     r.Header,
		SetCookie:  func(ck *http.Cookie) { http.SetCookie(w, ck) },
		Names:      &h.names,
	}
	args := make(map[string]json.RawMessage)
	a := argReader{h: h, args: args, limit: f.MaxBody}
	if r.URL.RawQuery != "" {
		if err := a.query(r.URL.RawQuery, "the query string"); err != nil {
			return nil, err
		}
	}
	if err := h.readBody(w, r, c, a); err != nil {
		return nil, err
	}
	if err := h.credentials(r, c, args); err != nil {
		return nil, err
	}
	c.Args = args
	return c, nil
}
