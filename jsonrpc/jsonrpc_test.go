package jsonrpc_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/registry"
)

var errBoom = apierr.Declare("BOOM", 400, "The function failed on purpose.", apierr.Attr("at", "where").Typed("integer"))

func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	reg.MustRegister("add", func(in struct {
		A int `json:"a"`
		B int `json:"b"`
	}) int {
		return in.A + in.B
	}, registry.Requires(decl.Public))
	reg.MustRegister("boom", func() error { return apierr.New(errBoom, "at", 7) }, registry.Errors(errBoom), registry.Requires(decl.Public))
	reg.MustRegister("secret", func(context.Context) string { return "s" })
	h, err := fnapi.New(reg, fnapi.WithJSONRPC(jsonrpc.Options{MaxBatch: 3, MaxBytes: 4096}))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", h))
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestJSONRPC(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	tests := []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"call", "/api/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":2,"b":3}}`, 200,
			`{"jsonrpc":"2.0","id":1,"result":5}`},
		{"call at a version", "/api/1.0/jsonrpc", `{"jsonrpc":"2.0","id":"x","method":"add","params":{"a":2,"b":3}}`, 200,
			`{"jsonrpc":"2.0","id":"x","result":5}`},
		{"unknown version", "/api/9.9/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"add"}`, 404, `"error":"UNKNOWN-VERSION"`},
		{"not JSON", "/api/jsonrpc", `{"jsonrpc"`, 200,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the body is not JSON"}}`},
		{"wrong jsonrpc", "/api/jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"add"}`, 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,`},
		{"method not a string", "/api/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":3}`, 200, `"code":-32600`},
		{"unknown method", "/api/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"nope"}`, 200,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"UNKNOWN-FUNCTION","data":{"type":"error","error":"UNKNOWN-FUNCTION","path":"nope"}}}`},
		{"positional params", "/api/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}`, 200, `"code":-32602`},
		{"bad argument", "/api/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":"x","b":1}}`, 200,
			`"code":-32602,"message":"INVALID-ARGUMENT"`},
		{"function error", "/api/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"boom"}`, 200,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"BOOM","data":{"type":"error","error":"BOOM","at":7}}}`},
		{"needs a token", "/api/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"secret"}`, 200, `"message":"API-AUTHENTICATION-NEEDED"`},
		{"batch", "/api/jsonrpc", `[{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1,"b":1}},{"jsonrpc":"2.0","method":"add","params":{"a":1,"b":1}},{"jsonrpc":"2.0","id":2,"method":"nope"}]`, 200,
			`[{"jsonrpc":"2.0","id":1,"result":2},{"jsonrpc":"2.0","id":2,"error":{"code":-32601,`},
		{"batch with a bad item", "/api/jsonrpc", `[1,{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1,"b":1}}]`, 200,
			`[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: not a JSON object"}},{"jsonrpc":"2.0","id":1,"result":2}]`},
		{"batch over the limit", "/api/jsonrpc", `[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","id":2,"method":"echo"},{"jsonrpc":"2.0","id":3,"method":"echo"},{"jsonrpc":"2.0","id":4,"method":"echo"}]`, 200,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a batch of more than the limit","data":{"limit":3}}}`},
		{"empty batch", "/api/jsonrpc", `[]`, 200, `"code":-32600`},
		{"notifications only", "/api/jsonrpc", `{"jsonrpc":"2.0","method":"add","params":{"a":1,"b":1}}`, 202, ``},
		{"body over the limit", "/api/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"x":"` + strings.Repeat("a", 5000) + `"}}`, 413,
			`"error":"REQUEST-TOO-LARGE"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := srv.Client().Post(srv.URL+tt.path, "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.status || !strings.Contains(string(b), tt.want) {
				t.Errorf("got %d %s\nwant %d %s", res.StatusCode, b, tt.status, tt.want)
			}
		})
	}
	res, err := srv.Client().Get(srv.URL + "/api/jsonrpc")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 405 {
		t.Errorf("GET: %d", res.StatusCode)
	}
}
