package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"unsafe"

	"github.com/fnapi/fnapi/internal/jsonobject"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/registry"
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

// removed reports the methods of sessions the stateless revision has no more: they answer
// 404 as any unknown method.
func removed(method string) bool {
	switch method {
	case "initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
		return true
	}
	return false
}

// cached reports the methods whose stateless results carry caching hints.
func cached(method string) bool {
	switch method {
	case "server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read":
		return true
	}
	return false
}

// stateless reports whether a request's headers are a stateless revision's: no session id,
// and an MCP-Protocol-Version that is none of the revisions of sessions.
func (hd headers) stateless() bool {
	v := strings.TrimSpace(hd.protocol)
	return hd.session == "" && v != "" && !slices.Contains(protocols, v)
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
func isStateless(hd headers, req *jsonrpc.Request) bool {
	if hd.session != "" {
		return false
	}
	if v := strings.TrimSpace(hd.protocol); v != "" {
		return !slices.Contains(protocols, v)
	}
	return bytes.Contains(req.Params, []byte(metaVersion))
}

// statelessSession checks a stateless request (its version in header and _meta, the
// Mcp-Method and Mcp-Name headers against its body) and returns the session of this request
// alone, held nowhere, with a tools/call's tool (looked up in x, unless nil); or answers why
// not (HTTP 400) and returns nil. params and meta are the members of the request's params and
// their _meta, read with the envelope (post); each is gone through once, the last member of a
// name counting (as Members.Get).
func statelessSession(w http.ResponseWriter, r *http.Request, hd headers, req *jsonrpc.Request, params, meta jsonobject.Members, x *transport.Exchange) *session {
	fail := func(code int, msg string, data any) *session {
		e := jsonrpc.NewError(code, msg)
		e.Data = data
		httpError(w, http.StatusBadRequest, withID(req, e))
		return nil
	}
	key := "name"
	switch req.Method {
	case "resources/read":
		key = "uri"
	case "tasks/get", "tasks/update", "tasks/cancel":
		key = "taskId"
	}
	sess := session{stateless: true, method: req.Method}
	var m, nameValue, version, level json.RawMessage
	for i := range params {
		switch p := &params[i]; p.Name {
		case "_meta":
			m = p.Value
		case key:
			nameValue = p.Value
		case "arguments":
			sess.arguments = p.Value
		case "requestState":
			sess.requestState = p.Value
		case "inputResponses":
			sess.inputResponses = p.Value
		}
	}
	for i := range meta {
		switch p := &meta[i]; p.Name {
		case metaVersion:
			version = p.Value
		case metaCaps:
			sess.caps = p.Value
		case metaLogLevel:
			level = p.Value
		case "progressToken":
			sess.progress = p.Value
		}
	}
	if len(req.Params) > 0 && req.Params[0] != '{' || m != nil && m[0] != '{' {
		return fail(jsonrpc.CodeInvalidParams, "invalid params: params and _meta must be objects", nil)
	}
	header := strings.TrimSpace(hd.protocol)
	if header == "" {
		return fail(CodeHeaderMismatch, "missing MCP-Protocol-Version header", nil)
	}
	if version == nil || sess.caps == nil {
		var missing []string
		if version == nil {
			missing = append(missing, metaVersion)
		}
		if sess.caps == nil {
			missing = append(missing, metaCaps)
		}
		return fail(jsonrpc.CodeInvalidParams, "invalid params: missing _meta keys: "+strings.Join(missing, ", "), nil)
	}
	if v, ok := jsonrpc.String(version); !ok || v != header {
		return fail(CodeHeaderMismatch, "MCP-Protocol-Version header does not match _meta "+metaVersion, nil)
	}
	if !slices.Contains(statelessProtocols, header) {
		return fail(CodeUnsupportedVersion, "unsupported protocol version",
			map[string]any{"supported": supported, "requested": header})
	}
	if strings.TrimSpace(reqHeader(r, headerMethod)) != req.Method {
		return fail(CodeHeaderMismatch, "Mcp-Method header does not match the body's method", nil)
	}
	ok := false
	if req.Method == "tools/call" {
		if sess.tool = toolNamed(x, nameValue); sess.tool != nil {
			sess.name, ok = sess.tool.Name, true
		}
	}
	if !ok {
		sess.name, ok = jsonrpc.String(nameValue)
		if req.Method == "tools/call" && x != nil {
			sess.tool = x.Lookup(sess.name)
		}
	}
	if named(req.Method) && ok && strings.TrimSpace(reqHeader(r, headerName)) != sess.name {
		return fail(CodeHeaderMismatch, "Mcp-Name header does not match the body's name or uri", nil)
	}
	sess.protocol, sess.level = header, len(levels) // no log messages unless the request asks for them
	if l, ok := jsonrpc.String(level); ok && levelOf(l) >= 0 {
		sess.level = levelOf(l)
	}
	return &sess
}

// toolNamed returns the tool a tools/call's name (its JSON) names, read without a copy of
// the name: nil when x is nil, the name is not a plain string, or names no tool, or another
// tool's (an alias): statelessSession then reads it as any name.
func toolNamed(x *transport.Exchange, name json.RawMessage) *registry.Func {
	if x == nil || len(name) < 3 || name[0] != '"' || bytes.IndexByte(name, '\\') >= 0 {
		return nil
	}
	s := unsafe.String(&name[1], len(name)-2) // the lookup keeps nothing of it
	if f := x.Lookup(s); f != nil && f.Name == s {
		return f
	}
	return nil
}

// named reports the methods whose Mcp-Name header repeats their params.name (uri, taskId).
func named(method string) bool {
	switch method {
	case "tools/call", "prompts/get", "resources/read", "tasks/get", "tasks/update", "tasks/cancel":
		return true
	}
	return false
}

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
	if cached(method) {
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
