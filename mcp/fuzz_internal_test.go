package mcp

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fnapi/fnapi/internal/jsonobject"
	"github.com/fnapi/fnapi/jsonrpc"
)

// FuzzAppendString checks that the text content of a tool result decodes back to the JSON
// text it was made from.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `"x\"y\\z\n\u0001"`, "\"é\u2028\"", `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		text, _ := json.Marshal(v) // as Marshal writes a result: valid UTF-8
		var back string
		if err := json.Unmarshal(appendString(nil, text), &back); err != nil || back != string(text) {
			t.Fatalf("%q: %q, %v", text, back, err)
		}
	})
}

// FuzzMatch checks that a URI a template matches is the template with its variables put back.
func FuzzMatch(f *testing.F) {
	f.Add("test://template/{id}/data", "test://template/123/data")
	f.Add("a/{x}{y}", "a/bc")
	f.Add("{x}", "")
	f.Fuzz(func(t *testing.T, tmpl, uri string) {
		vars, ok := match(tmpl, uri)
		if !ok {
			return
		}
		got := tmpl
		for k, v := range vars {
			if v == "" || strings.Contains(v, "/") {
				t.Fatalf("%q, %q: variable %s = %q", tmpl, uri, k, v)
			}
			got = strings.Replace(got, "{"+k+"}", v, 1)
		}
		if !strings.Contains(tmpl, "}{") && got != uri && !strings.Contains(got, "{") {
			t.Fatalf("%q with %v is %q, not %q", tmpl, vars, got, uri)
		}
	})
}

func TestMatch(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		tmpl, uri string
		want      map[string]string
	}{
		{"test://template/{id}/data", "test://template/123/data", map[string]string{"id": "123"}},
		{"test://template/{id}/data", "test://template/1/2/data", nil},
		{"test://template/{id}/data", "test://template//data", nil},
		{"doc://{a}.{b}", "doc://x.y", map[string]string{"a": "x", "b": "y"}},
		{"static://x", "static://x", map[string]string{}},
	} {
		got, ok := match(tt.tmpl, tt.uri)
		if ok != (tt.want != nil) || len(got) != len(tt.want) {
			t.Errorf("%s %s: %v %v", tt.tmpl, tt.uri, got, ok)
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("%s %s: %s = %q", tt.tmpl, tt.uri, k, got[k])
			}
		}
	}
}

// FuzzStatelessSession checks that a stateless request's params and headers, whatever they
// are, either make the request's session or answer 400 with the request's id: never a panic,
// never another status.
func FuzzStatelessSession(f *testing.F) {
	f.Add("tools/call", `{"name":"add","arguments":{"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`, "2026-07-28", "add")
	f.Add("resources/read", `{"uri":"x://y","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}`, "2026-07-28", " x://y ")
	f.Add("tools/list", `{"_meta":[]}`, "2099-01-01", "")
	f.Add("tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}`, "", "")
	f.Fuzz(func(t *testing.T, method, params, version, name string) {
		// The params as post reads them: in the same pass as the envelope, which is valid.
		levels, ok := jsonobject.ReadPath([]byte(`{"params":`+params+`}`), [3]jsonobject.Members{}, [2]string{"params", "_meta"})
		if !ok {
			return
		}
		req := &jsonrpc.Request{JSONRPC: jsonrpc.Version, ID: json.RawMessage("7"), Method: method, Params: levels[0].Get("params")}
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Header.Set(headerProtocol, version)
		r.Header.Set(headerMethod, method)
		r.Header.Set(headerName, name)
		w := httptest.NewRecorder()
		sess := statelessSession(w, r, headersOf(r), req, levels[1], levels[2], nil)
		if sess != nil {
			if w.Code != 200 || w.Body.Len() > 0 || !sess.stateless || sess.protocol != StatelessProtocol {
				t.Fatalf("a session, and an answer %d %s", w.Code, w.Body)
			}
			return
		}
		var resp jsonrpc.Response
		if w.Code != http.StatusBadRequest || json.Unmarshal(w.Body.Bytes(), &resp) != nil || string(resp.ID) != "7" || resp.Error == nil {
			t.Fatalf("refused with %d %s", w.Code, w.Body)
		}
	})
}

// FuzzParamHeaders: any header and arguments are answered (no panic), and an argument's own
// value, literal or in Base64, always passes.
func FuzzParamHeaders(f *testing.F) {
	f.Add(`{"arguments":{"region":"eu"}}`, "eu", "region")
	f.Add(`{"arguments":{"region":"Hello"}}`, "=?base64?SGVsbG8=?=", "x")
	f.Add(`{"arguments":[]}`, "=?base64?", "")
	f.Fuzz(func(t *testing.T, params, header, value string) {
		headers := map[string]string{"region": "Region"}
		h := http.Header{"Mcp-Param-Region": {header}}
		_ = paramHeadersWrong(h, json.RawMessage(params), headers)
		if !utf8.ValidString(value) { // JSON would not carry it as it is
			return
		}
		arg, _ := json.Marshal(map[string]any{"arguments": map[string]string{"region": value}})
		h.Set("Mcp-Param-Region", "=?base64?"+base64.StdEncoding.EncodeToString([]byte(value))+"?=")
		if msg := paramHeadersWrong(h, arg, headers); msg != "" {
			t.Fatalf("the value %q in Base64: %s", value, msg)
		}
	})
}
