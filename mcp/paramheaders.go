package mcp

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/fnapi/fnapi/internal/jsonobject"
	"github.com/fnapi/fnapi/jsonrpc"
)

// Argument headers (revision 2026-07-28, SEP-2243). A tool's argument whose schema says
// "x-mcp-header": "Region" (a Go field tagged `jsonschema_extras:"x-mcp-header=Region"`, or a
// hand-written Options.InputSchemas) is repeated by stateless clients in the header
// Mcp-Param-Region, so that a proxy may route on it: the value as it is, or =?base64?...?=
// (standard Base64 with its padding) for what a header cannot hold. A tools/call whose header
// is missing while the argument is given, is not valid Base64, or disagrees with the argument
// (a string as it is, another value as its JSON text) is refused with HTTP 400 and
// CodeHeaderMismatch.

// paramHeaderPrefix begins the header of an argument.
const paramHeaderPrefix = "Mcp-Param-"

// paramHeadersOf returns the arguments of a tool's JSON (a tool of tools/list) that name a
// header, by argument.
func paramHeadersOf(toolJSON []byte) map[string]string {
	var t struct {
		InputSchema struct {
			Properties map[string]struct {
				Header string `json:"x-mcp-header"`
			} `json:"properties"`
		} `json:"inputSchema"`
	}
	if json.Unmarshal(toolJSON, &t) != nil {
		return nil
	}
	var m map[string]string
	for name, p := range t.InputSchema.Properties {
		if p.Header != "" {
			if m == nil {
				m = map[string]string{}
			}
			m[name] = p.Header
		}
	}
	return m
}

// checkParamHeaders checks the argument headers of a stateless tools/call of the tool info
// (toolOf), and answers HTTP 400 and returns false when one is wrong. An unknown tool (nil)
// passes: callTool answers it.
func checkParamHeaders(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, info *toolInfo) bool {
	if info == nil || len(info.headers) == 0 {
		return true
	}
	if msg := paramHeadersWrong(r.Header, req.Params, info.headers); msg != "" {
		httpError(w, http.StatusBadRequest, withID(req, jsonrpc.NewError(CodeHeaderMismatch, msg)))
		return false
	}
	return true
}

// paramHeadersWrong says what is wrong with the argument headers h of a tools/call's params,
// or "".
func paramHeadersWrong(h http.Header, params json.RawMessage, headers map[string]string) string {
	m := map[string]json.RawMessage{}
	args := map[string]json.RawMessage{}
	if !jsonobject.Read(params, m, false) || m["arguments"] != nil && string(m["arguments"]) != "null" && !jsonobject.Read(m["arguments"], args, false) {
		return "" // callTool answers malformed params
	}
	for arg, name := range headers {
		vs, sent := h[http.CanonicalHeaderKey(paramHeaderPrefix+name)]
		v, given := args[arg]
		switch {
		case !sent && !given:
			continue
		case !sent:
			return "missing header " + paramHeaderPrefix + name + " for argument " + arg
		case len(vs) > 1:
			return "header " + paramHeaderPrefix + name + " given more than once"
		}
		hv, ok := headerValue(vs[0])
		if !ok {
			return "header " + paramHeaderPrefix + name + " is not valid Base64"
		}
		want := string(v)
		if str, isString := jsonrpc.String(v); isString {
			want = str
		}
		if !given || hv != want {
			return "header " + paramHeaderPrefix + name + " does not match argument " + arg
		}
	}
	return ""
}

// headerValue decodes an argument header's value: =?base64?...?= as standard Base64, any
// other as it is, without surrounding whitespace.
func headerValue(v string) (string, bool) {
	v = strings.TrimSpace(v)
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, true
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return v, true
	}
	b, err := base64.StdEncoding.Strict().DecodeString(inner)
	return string(b), err == nil
}
