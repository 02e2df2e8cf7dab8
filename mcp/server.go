package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/internal/bufpool"
	"github.com/fnapi/fnapi/internal/jsonobject"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// LatestProtocol is the MCP specification this package implements.
const LatestProtocol = "2025-11-25"

// protocols are the versions of the specification a client may ask for; an older client that
// sends no MCP-Protocol-Version header is taken for 2025-03-26, as the specification says.
var protocols = []string{LatestProtocol, "2025-06-18", "2025-03-26"}

// Server is the MCP endpoint: set it in transport.Config.Endpoints under "mcp" (fnapi.WithMCP
// does). It is safe for concurrent use.
type Server struct {
	opts     Options
	sessions sessions
	tasks    tasks
	tools    sync.Map                       // *registry.Func -> *toolInfo: each tool's JSON, built once
	probes   atomic.Pointer[[]versionProbe] // f nil: every function is public
}

// New returns the endpoint.
func New(opts Options) *Server {
	opts = opts.withDefaults()
	for name, in := range opts.InputSchemas {
		var v map[string]any
		if err := json.Unmarshal(in, &v); err != nil || v == nil {
			panic(fmt.Sprintf("mcp: Options.InputSchemas[%q] is not a JSON object", name))
		}
	}
	return &Server{opts: opts, sessions: sessions{max: opts.MaxSessions, perCaller: opts.SessionsPerCaller, idle: opts.SessionIdle},
		tasks: tasks{perCaller: opts.TasksPerCaller, max: opts.MaxTasks, ttl: opts.TaskTTL}}
}

// Header names of the Streamable HTTP transport.
const (
	headerSession  = "Mcp-Session-Id"
	headerProtocol = "Mcp-Protocol-Version"
)

// ServeEndpoint answers one request of the Streamable HTTP transport.
func (s *Server) ServeEndpoint(w http.ResponseWriter, r *http.Request, x *transport.Exchange) {
	if x.CrossSite() || rebound(r) { // a page of a foreign site, or DNS rebinding
		httpError(w, http.StatusForbidden, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "origin or host not allowed"))
		return
	}
	switch r.Method {
	case http.MethodPost, http.MethodDelete:
	default:
		// No stream of the server's own (GET) and no resumption: every message of the server
		// goes on the answer of the POST it belongs to.
		w.Header().Set("Allow", "POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "method not allowed"))
		return
	}
	hd := headersOf(r)
	probe, err := s.authenticate(r.Context(), x)
	if err != nil {
		// A session ends with its credential (key revoked, logged out, expired, user deleted).
		if sess := s.sessions.get(hd.session, x.TokenDigest()); sess != nil {
			s.sessions.end(sess)
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp", error="invalid_token"`)
		httpError(w, http.StatusUnauthorized, jsonrpc.FromAPI(err))
		return
	}
	// A version of no session is a stateless revision's, checked with its request (see post).
	if v := hd.protocol; (r.Method == http.MethodDelete || hd.session != "") && v != "" && !slices.Contains(protocols, v) {
		httpError(w, http.StatusBadRequest, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "unsupported MCP-Protocol-Version "+v))
		return
	}
	if r.Method == http.MethodDelete {
		sess := s.sessionOf(w, hd.session, x)
		if sess != nil {
			s.sessions.end(sess)
			w.WriteHeader(http.StatusNoContent)
		}
		return
	}
	s.post(w, r, x, probe, hd)
}

// headers are the headers of the Streamable HTTP transport a request's answer depends on,
// read once.
type headers struct{ session, protocol string }

func headersOf(r *http.Request) headers {
	return headers{session: reqHeader(r, headerSession), protocol: reqHeader(r, headerProtocol)}
}

// post answers a POST: one request, notification or response.
func (s *Server) post(w http.ResponseWriter, r *http.Request, x *transport.Exchange, probe *registry.Call, hd headers) {
	// A stateless request's body is read into a buffer of the pool, given back once answered:
	// nothing keeps its bytes past the answer (callTool copies the arguments, startTask what
	// its task keeps). A session's may be kept (the answer to a request of the server), and is
	// a copy of its own.
	buf := bufpool.Get()
	defer bufpool.Put(buf)
	if err := x.ReadBodyTo(buf, s.opts.MaxBytes); err != nil {
		e := apierr.From(err)
		httpError(w, e.Status(), jsonrpc.FromAPI(e))
		return
	}
	body, pooled := buf.Bytes(), hd.stateless()
	if !pooled {
		body = bytes.Clone(body)
	}
	// One pass reads the envelope, its params and their _meta (see statelessSession).
	var members [20]jsonobject.Member
	levels, ok := jsonobject.ReadPath(body, [3]jsonobject.Members{members[:0:6], members[6:6:14], members[14:14]}, [2]string{"params", "_meta"})
	var one jsonrpc.Request
	var ierr, perr *jsonrpc.Error // the request's error; the body's
	var batch bool
	if ok {
		env := levels[0]
		one, ierr = jsonrpc.RequestOf(env.Get("jsonrpc"), env.Get("id"), env.Get("method"), env.Get("params"))
	} else { // not an object: Parse says why
		reqs, errs, b, e := jsonrpc.Parse(body, 1)
		if batch, perr = b, e; perr == nil && !batch {
			one, ierr = reqs[0], errs[0]
		}
	}
	var req *jsonrpc.Request
	if perr == nil && !batch && ierr == nil {
		req = &one
	}
	// Every request counts against the caller's rate limit once: by its function's call, or
	// here, before any work, when it calls none.
	calls := req != nil && !req.IsNotification() && callsFunction(req.Method)
	if !calls {
		if err := s.count(r.Context(), x); err != nil {
			refuse(w, req, err)
			return
		}
	}
	if perr == nil && !batch && ierr != nil && isResponse(body) { // the answer to a request of the server (see Request)
		if sess := s.sessionOf(w, hd.session, x); sess != nil {
			sess.answered(body)
			w.WriteHeader(http.StatusAccepted)
		}
		return
	}
	switch {
	case perr != nil:
		httpError(w, http.StatusBadRequest, perr)
		return
	case batch:
		httpError(w, http.StatusBadRequest, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: MCP has no batches"))
		return
	case ierr != nil:
		httpError(w, http.StatusBadRequest, ierr)
		return
	}
	stateless := pooled || isStateless(hd, req)
	if stateless && req.IsNotification() { // no session whose calls it could cancel
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if req.Method == "initialize" && !req.IsNotification() && !stateless {
		s.initialize(w, x, req, callerOf(probe, r, x))
		return
	}
	var sess *session
	if stateless {
		if sess = statelessSession(w, r, hd, req, levels[1], levels[2], x); sess != nil && bytes.Contains(sess.caps, []byte(TasksExtension)) {
			sess.caller = callerOf(probe, r, x) // whom its tasks count against
		}
		if sess != nil && req.Method == "tools/call" {
			if sess.tool != nil {
				sess.info = s.toolOf(sess.tool)
			}
			if !checkParamHeaders(w, r, req, sess.info) {
				sess = nil
			}
		}
	} else {
		sess = s.sessionOf(w, hd.session, x)
	}
	if sess == nil {
		if calls {
			_ = s.count(r.Context(), x) // answered already
		}
		return
	}
	s.respond(w, r, x, probe, sess, req, stateless, calls)
}

// respond answers a request or notification of sess: the second half of post, apart so that
// its defers cost no more than calls.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, x *transport.Exchange, probe *registry.Call, sess *session, req *jsonrpc.Request, stateless, calls bool) {
	if req.IsNotification() {
		s.notification(sess, req)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var a *answer
	if stateless {
		a = &sess.own.answer
		a.w, a.r = w, r
	} else {
		a = newAnswer(w, r)
	}
	a.id = req.ID
	var res any
	var rerr *jsonrpc.Error
	if stateless {
		if a.input, rerr = s.inputsOf(sess, x.TokenDigest); a.input != nil {
			defer a.input.end()
		}
	}
	if rerr == nil {
		res, rerr = s.dispatch(r.Context(), x, sess, a, req)
	}
	wh, isWhole := res.(*whole) // a tool's result (see toolResult)
	if isWhole {
		defer bufpool.Put((*bytes.Buffer)(wh))
	}
	if a.input != nil && asking(req.Method) && len(a.input.required()) > 0 {
		res, rerr = s.inputRequired(a.input, x.TokenDigest(), sess.target()), nil
	}
	if calls && !a.called { // no tool of that name, static content...
		if err := s.count(r.Context(), x); err != nil {
			refuse(w, req, err)
			return
		}
	}
	if _, ok := res.(*whole); ok && rerr == nil { // not replaced by input_required
		a.replyWhole((*bytes.Buffer)(wh).Bytes())
		return
	}
	resp := jsonrpc.Response{JSONRPC: jsonrpc.Version, ID: req.ID, Error: rerr}
	if rerr == nil {
		var b json.RawMessage
		switch t := res.(type) {
		case json.RawMessage:
			b = t
		default:
			var err error
			if b, err = jsonrpc.Marshal(res); err != nil {
				resp.Error = jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error")
			}
		}
		if stateless {
			b = complete(req.Method, b, probe == nil)
		}
		resp.Result = b
	}
	if stateless && resp.Error != nil {
		switch resp.Error.Code {
		case CodeResourceNotFound: // the stateless revision says invalid params
			resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: resp.Error.Message, Data: resp.Error.Data}
		case jsonrpc.CodeMethodNotFound:
			if a.status(http.StatusNotFound, resp) {
				return
			}
		case CodeMissingCapability:
			if a.status(http.StatusBadRequest, resp) {
				return
			}
		}
	}
	a.reply(resp)
}

// sessionOf returns the request's session, or answers why there is none: 400 without
// Mcp-Session-Id, 404 for a session that ended or is another caller's.
func (s *Server) sessionOf(w http.ResponseWriter, id string, x *transport.Exchange) *session {
	if id == "" {
		httpError(w, http.StatusBadRequest, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "missing Mcp-Session-Id: initialize first"))
		return nil
	}
	sess := s.sessions.get(id, x.TokenDigest())
	if sess == nil {
		httpError(w, http.StatusNotFound, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session not found: initialize again"))
	}
	return sess
}

// dispatch answers one request of a session.
func (s *Server) dispatch(ctx context.Context, x *transport.Exchange, sess *session, a *answer, req *jsonrpc.Request) (any, *jsonrpc.Error) {
	if sess.stateless && removed(req.Method) {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: "+req.Method)
	}
	switch req.Method {
	case "server/discover":
		if sess.stateless {
			return s.discover(x), nil
		}
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		return s.listTools(ctx, x, req.Params)
	case "tasks/get", "tasks/cancel", "tasks/update":
		if sess.stateless {
			return s.taskMethod(x, sess, req)
		}
	case "tools/call":
		if task, err := s.wantsTask(x, sess); err != nil || task {
			if err != nil {
				return nil, err
			}
			return s.startTask(ctx, x, sess, a, req.Params)
		}
		if sess.stateless { // nothing may cancel it but its client going away
			return s.callTool(ctx, x, sess, a, req.Params)
		}
		ctx, cancel := context.WithCancel(ctx)
		defer sess.track(string(req.ID), cancel)()
		defer cancel()
		return s.callTool(ctx, x, sess, a, req.Params)
	case "logging/setLevel":
		var p struct {
			Level string `json:"level"`
		}
		if json.Unmarshal(req.Params, &p) != nil || levelOf(p.Level) < 0 {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "level must be one of debug, info, notice, warning, error, critical, alert, emergency")
		}
		sess.setLevel(levelOf(p.Level))
		return struct{}{}, nil
	case "resources/list":
		if len(s.opts.Resources) > 0 {
			return s.listResources(false), nil
		}
	case "resources/templates/list":
		if len(s.opts.Resources) > 0 {
			return s.listResources(true), nil
		}
	case "resources/subscribe", "resources/unsubscribe":
		// Accepted, so that clients may ask; resources served from functions change without
		// the server knowing, so no notifications/resources/updated is ever sent.
		if len(s.opts.Resources) > 0 {
			return struct{}{}, nil
		}
	case "completion/complete":
		// No suggestions: prompt and template arguments are free text.
		return map[string]any{"completion": map[string]any{"values": []string{}, "hasMore": false}}, nil
	case "resources/read":
		if len(s.opts.Resources) > 0 {
			return s.readResource(ctx, x, a, req.Params)
		}
	case "prompts/list":
		if len(s.opts.Prompts) > 0 {
			return s.listPrompts(x), nil
		}
	case "prompts/get":
		if len(s.opts.Prompts) > 0 {
			return s.getPrompt(ctx, x, a, req.Params)
		}
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: "+req.Method)
}

// isResponse reports whether a body is a JSON-RPC response (result or error, no method).
func isResponse(body []byte) bool {
	b := bytes.TrimSpace(body)
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	_, method := m["method"]
	_, result := m["result"]
	_, failed := m["error"]
	return !method && (result || failed)
}

func withID(req *jsonrpc.Request, e *jsonrpc.Error) jsonrpc.Response {
	return jsonrpc.Response{JSONRPC: jsonrpc.Version, ID: req.ID, Error: e}
}

// httpError answers an error of the exchange with an HTTP status and a JSON-RPC error body.
func httpError(w http.ResponseWriter, status int, v any) {
	if e, ok := v.(*jsonrpc.Error); ok {
		v = jsonrpc.Response{JSONRPC: jsonrpc.Version, ID: json.RawMessage("null"), Error: e}
	}
	b, _ := jsonrpc.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
