package transport_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// FuzzArguments feeds arbitrary query strings and bodies to the argument reader and binder:
// every answer must be one JSON message, a result or a 4xx error, never a 500 or a crash.
func FuzzArguments(f *testing.F) {
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	pub := registry.Requires(decl.Public)
	reg.MustRegister("greet", greet, pub, registry.MaxBody(64<<10))
	reg.MustRegister("add", func(a, b int) int { return a + b }, registry.Args("a", "b"), pub)
	// big takes a large body once the caller shows a token: its body may be read after the
	// interceptors (registry.Call.ArgsUnread).
	reg.MustRegister("big", func(in map[string]json.RawMessage) int { return len(in) }, registry.MaxBody(2<<20))
	h, err := transport.New(reg, transport.Config{Interceptors: []registry.Interceptor{testAuth}})
	if err != nil {
		f.Fatal(err)
	}
	seeds := []struct{ path, query, ctype, body string }{
		{"echo", `a=1&b="x"`, "", ""},
		{"greet", `name=ann&times=2`, "application/json", `{"tags":["a"]}`},
		{"add", `a=1`, "application/x-www-form-urlencoded", `b=2`},
		{"add", ``, "multipart/form-data; boundary=zz", "--zz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--zz--\r\n"},
		{"greet", `name=%FF%FE`, "application/json", `{"times":1e400}`},
		{"1.0/echo", `_session="session:x"`, "text/plain", ``},
		{"echo", `a=[[[[`, "application/json", `[`},
		{"big", `_key=secret:k`, "application/json", `{"a":1,"_key":"secret:k"}`},
		{"big", `_key=secret:k&a=1`, "application/x-www-form-urlencoded", `b=2`},
	}
	for _, s := range seeds {
		f.Add(s.path, s.query, s.ctype, s.body)
	}
	f.Fuzz(func(t *testing.T, path, query, ctype, body string) {
		req := httptest.NewRequest("POST", "/x", strings.NewReader(body))
		req.URL.Path = "/" + path
		req.URL.RawQuery = query
		if len(body)%2 == 1 {
			req.ContentLength = -1 // as a chunked body: read to learn its length
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK && (w.Code < 400 || w.Code >= 500) {
			t.Fatalf("status %d for %q?%q (%q): %s", w.Code, path, query, ctype, w.Body)
		}
		var msg struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &msg); err != nil || (msg.Type != "result" && msg.Type != "error") {
			t.Fatalf("not one message: %q", w.Body)
		}
	})
}

// FuzzTokenHeaders feeds arbitrary token-carrying headers (Cookie, the key header, Origin,
// Sec-Fetch-Site) and token arguments to the handler: every answer must be one JSON message, a
// result or a 4xx error, never a 500 or a crash.
func FuzzTokenHeaders(f *testing.F) {
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	reg.MustRegister("whoami", func(ctx context.Context) any { return registry.CallFrom(ctx).Identity })
	h, err := transport.New(reg, transport.Config{Interceptors: []registry.Interceptor{testAuth}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add("Svc-Session=session:s", "secret:k", "https://example.com", "same-origin", "_key=secret:k")
	f.Add("Svc-Session=a; Svc-Session=b", "Bearer x", "null", "cross-site", "_session=session:s")
	f.Add(`Svc-Session="session:s"; other=1`, "", "http://[::1", "none", "")
	f.Fuzz(func(t *testing.T, cookie, key, origin, fetch, query string) {
		req := httptest.NewRequest("GET", "/whoami", nil)
		req.URL.RawQuery = query
		for name, v := range map[string]string{"Cookie": cookie, "Svc-Authorization": key, "Origin": origin, "Sec-Fetch-Site": fetch} {
			if v != "" {
				req.Header[name] = strings.Split(v, "\n") // a newline makes two headers
			}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK && (w.Code < 400 || w.Code >= 500) {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		var msg struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &msg); err != nil || (msg.Type != "result" && msg.Type != "error") {
			t.Fatalf("not one message: %q", w.Body)
		}
	})
}
