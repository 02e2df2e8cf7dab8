package mcp

import (
	"bytes"
	"net/http"
	"slices"
	"strings"

	"github.com/fnapi/fnapi/internal/jsonobject"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/transport"
)

// StatelessProtocol is the revision served without sessions: each request carries its
// version and the client's capabilities in params._meta.
const StatelessProtocol = "2026-07-28"

// statelessProtocols are the stateless revisions; supported lists every revision, newest first.
var (
	statelessProtocols = []string{StatelessProtocol}
	supported          = append(slices.Clone(statelessProtocols), protocols...)
)

// Headers and errors of the stateless revision.
const (
	headerMethod = "Mcp-Method"
	headerName   = "Mcp-Name"

	CodeHeaderMismatch     = -32020 // Mcp-Method, Mcp-Name or MCP-Protocol-Version disagree with the body
	CodeUnsupportedVersion = -32022 // a revision the server does not speak

	metaVersion  = "io.modelcontextprotocol/protocolVersion"
	metaCaps     = "io.modelcontextprotocol/clientCapabilities"
	metaServer   = "io.modelcontextprotocol/serverInfo"
	metaLogLevel = "io.modelcontextprotocol/logLevel"
)

// removed are the methods of sessions the stateless revision has no more: they answer 404
// as any unknown method.
var removed = map[string]bool{"initialize": true, "ping": true, "logging/setLevel": true,
	"resources/subscribe": true, "resources/unsubscribe": true}

// cached are the methods whose stateless results carry caching hints.
var cached = map[string]bool{"server/discover": true, "tools/list": true, "prompts/list": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true}

// statelessHeaders reports whether a request's headers are a stateless revision's: no session
// id, and an MCP-Protocol-Version that is none of the revisions of sessions.
func statelessHeaders(r *http.Request) bool {
	if reqHeader(r, headerSession) != "" {
		return false
	}
	v := strings.TrimSpace(reqHeader(r, headerProtocol))
	return v != "" && !slices.Contains(protocols, v)
}

// reqHeader returns the first value of the header key, which is in canonical form (as
// http.Header.Get, without canonicalizing key again).
func reqHeader(r *http.Request, key string) string {
	if v := r.Header[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// isStateless reports whether a request is of a stateless revision: it has no session id,
// and its MCP-Protocol-Version is none of the revisions of sessions, or it has none and its
// params carry _meta's protocol version.
func isStateless(r *http.Request, req *jsonrpc.Request) bool {
	if reqHeader(r, headerSession) != "" {
		return false
	}
	if v := strings.TrimSpace(reqHeader(r, headerProtocol)); v != "" {
		return !slices.Contains(protocols, v)
	}
	return bytes.Contains(req.Params, []byte(metaVersion))
}

// statelessSession checks a stateless request (its version in header and _meta, the
// Mcp-Method and Mcp-Name headers against its body) and returns the session of this request
// alone, held nowhere; or answers why not (HTTP 400) and returns nil. params and meta are
// the members of the request's params and their _meta, read with the envelope (post).
func statelessSession(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, params, meta jsonobject.Members) *session {
	fail := func(code int, msg string, data any) *session {
		e := jsonrpc.NewError(code, msg)
		e.Data = data
		httpError(w, http.StatusBadRequest, withID(req, e))
		return nil
	}
	if m := params.Get("_meta"); len(req.Params) > 0 && req.Params[0] != '{' || m != nil && m[0] != '{' {
		return fail(jsonrpc.CodeInvalidParams, "invalid params: params and _meta must be objects", nil)
	}
	header := strings.TrimSpace(reqHeader(r, headerProtocol))
	if header == "" {
		return fail(CodeHeaderMismatch, "missing MCP-Protocol-Version header", nil)
	}
	var missing []string
	for _, k := range []string{metaVersion, metaCaps} {
		if meta.Get(k) == nil {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fail(jsonrpc.CodeInvalidParams, "invalid params: missing _meta keys: "+strings.Join(missing, ", "), nil)
	}
	if version, ok := jsonrpc.String(meta.Get(metaVersion)); !ok || version != header {
		return fail(CodeHeaderMismatch, "MCP-Protocol-Version header does not match _meta "+metaVersion, nil)
	}
	if !slices.Contains(statelessProtocols, header) {
		return fail(CodeUnsupportedVersion, "unsupported protocol version",
			map[string]any{"supported": supported, "requested": header})
	}
	if strings.TrimSpace(reqHeader(r, headerMethod)) != req.Method {
		return fail(CodeHeaderMismatch, "Mcp-Method header does not match the body's method", nil)
	}
	key := "name"
	switch req.Method {
	case "resources/read":
		key = "uri"
	case "tasks/get", "tasks/update", "tasks/cancel":
		key = "taskId"
	}
	name, ok := jsonrpc.String(params.Get(key))
	if named[req.Method] && ok && strings.TrimSpace(reqHeader(r, headerName)) != name {
		return fail(CodeHeaderMismatch, "Mcp-Name header does not match the body's name or uri", nil)
	}
	level := len(levels) // no log messages unless the request asks for them
	if l, ok := jsonrpc.String(meta.Get(metaLogLevel)); ok && levelOf(l) >= 0 {
		level = levelOf(l)
	}
	return &session{stateless: true, protocol: header, level: level, method: req.Method, name: name,
		caps: meta.Get(metaCaps), requestState: params.Get("requestState"), inputResponses: params.Get("inputResponses"),
		arguments: params.Get("arguments"), progress: meta.Get("progressToken")}
}

// named are the methods whose Mcp-Name header repeats their params.name (uri, taskId).
var named = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true,
	"tasks/get": true, "tasks/update": true, "tasks/cancel": true}

// discover answers server/discover: the revisions, the capabilities and who the server is.
func (s *Server) discover(x *transport.Exchange) any {
	res := map[string]any{
		"supportedVersions": supported,
		"capabilities":      s.capabilities(true),
		"_meta":             map[string]any{metaServer: s.serverInfo(x)},
	}
	if s.opts.Instructions != "" {
		res["instructions"] = s.opts.Instructions
	}
	return res
}

// complete marks a stateless result: resultType, and the caching hints on lists and reads
// (ttlMs 0: a caller's rights, and what functions answer, may change at any time; the
// scope is public only when every function is).
func complete(method string, b []byte, public bool) []byte {
	if len(b) < 2 || b[0] != '{' || bytes.HasPrefix(b, []byte(`{"resultType"`)) {
		return b
	}
	out := make([]byte, 0, len(b)+64)
	out = append(out, `{"resultType":"complete"`...)
	if cached[method] {
		scope := "private"
		if public {
			scope = "public"
		}
		out = append(out, `,"ttlMs":0,"cacheScope":"`+scope+`"`...)
	}
	if b[1] != '}' {
		out = append(out, ',')
	}
	return append(out, b[1:]...)
}
