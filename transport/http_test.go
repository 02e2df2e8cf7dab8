package transport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/apitest"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

type greetArgs struct {
	Name  string   `json:"name"`
	Times int      `json:"times" default:"1" jsonschema:"minimum=1,maximum=10"`
	Tags  []string `json:"tags,omitempty"`
}

func greet(_ context.Context, in greetArgs) (string, error) {
	return strings.Repeat("hello "+in.Name+" ", in.Times) + strings.Join(in.Tags, ","), nil
}

// newServer serves a small API over real TLS under /api.
func newServer(t testing.TB, cfg transport.Config) *httptest.Server {
	t.Helper()
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	pub := registry.Requires(decl.Public)
	reg.MustRegister("greet", greet, pub)
	reg.MustRegister("add", func(a, b int) int { return a + b }, registry.Args("a", "b"), pub)
	reg.MustRegister("private", func() string { return "secret" })
	reg.MustRegister("boom", func() (int, error) { return 0, fmt.Errorf("db password=hunter2 failed") }, pub)
	reg.MustRegister("newer", func() string { return "1.1" }, registry.Since("1.1"), pub)
	h, err := transport.New(reg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.Serve(t, h)
	return srv
}

type response struct {
	status int
	ctype  string
	msg    map[string]any
	raw    string
}

func do(t *testing.T, srv *httptest.Server, req *http.Request) response {
	t.Helper()
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	r := response{status: res.StatusCode, ctype: res.Header.Get("Content-Type"), raw: string(b)}
	if err := json.Unmarshal(b, &r.msg); err != nil {
		t.Fatalf("body is not one JSON message: %q", b)
	}
	return r
}

func get(t *testing.T, srv *httptest.Server, path string) response {
	req, _ := http.NewRequest("GET", srv.URL+path, nil)
	return do(t, srv, req)
}

func post(t *testing.T, srv *httptest.Server, path, ctype, body string) response {
	req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	return do(t, srv, req)
}

func multipartBody(t *testing.T, fields map[string]string, file string) (string, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	if file != "" {
		fw, _ := w.CreateFormFile("tags", "tags.json")
		_, _ = fw.Write([]byte(file))
	}
	_ = w.Close()
	return w.FormDataContentType(), b.String()
}

func TestCallingForms(t *testing.T) {
	t.Parallel()
	srv := newServer(t, transport.Config{})
	mct, mbody := multipartBody(t, map[string]string{"name": "ann", "times": "2"}, `["a","b"]`)
	tests := []struct {
		name string
		res  func() response
		want string
	}{
		{"GET JSON values", func() response {
			return get(t, srv, `/api/greet?name="ann"&times=2&tags=`+url.QueryEscape(`["a","b"]`))
		}, "hello ann hello ann a,b"},
		{"GET unquoted string", func() response { return get(t, srv, "/api/greet?name=ann") }, "hello ann "},
		{"POST form", func() response {
			return post(t, srv, "/api/greet", "application/x-www-form-urlencoded", "name=ann&times=2")
		}, "hello ann hello ann "},
		{"POST multipart with file", func() response { return post(t, srv, "/api/greet", mct, mbody) }, "hello ann hello ann a,b"},
		{"POST JSON", func() response {
			return post(t, srv, "/api/greet", "application/json", `{"name":"ann","tags":["x"]}`)
		}, "hello ann x"},
		{"POST JSON with charset", func() response {
			return post(t, srv, "/api/greet", "application/json; charset=utf-8", `{"name":"ann"}`)
		}, "hello ann "},
		{"query and body merged", func() response {
			return post(t, srv, "/api/greet?times=3", "application/json", `{"name":"bo"}`)
		}, "hello bo hello bo hello bo "},
		{"versioned", func() response { return get(t, srv, "/api/1.0/greet?name=v") }, "hello v "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.res()
			if r.status != 200 || r.msg["type"] != "result" || r.msg["result"] != tt.want {
				t.Fatalf("got %d %s, want result %q", r.status, r.raw, tt.want)
			}
			if r.ctype != "application/json" {
				t.Errorf("Content-Type %q", r.ctype)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	srv := newServer(t, transport.Config{})
	deep := strings.Repeat("[", 600000) + strings.Repeat("]", 600000)
	tests := []struct {
		name   string
		res    func() response
		status int
		code   string
		attrs  map[string]any
	}{
		{"too few", func() response { return get(t, srv, "/api/add?a=1") }, 400, "TOO-FEW-ARGUMENTS",
			map[string]any{"names": []any{"a", "b"}, "count": 2.0}},
		{"unknown args", func() response { return get(t, srv, "/api/add?a=1&b=2&c=3") }, 400, "UNKNOWN-ARGUMENTS",
			map[string]any{"names": []any{"c"}}},
		{"wrong type", func() response { return get(t, srv, `/api/add?a="x"&b=2`) }, 400, "INVALID-ARGUMENT",
			map[string]any{"name": "a"}},
		{"out of schema", func() response { return get(t, srv, `/api/greet?name=a&times=11`) }, 400, "INVALID-ARGUMENT",
			map[string]any{"name": "times", "reason": "must be at most 10"}},
		{"unknown function", func() response { return get(t, srv, "/api/nope") }, 404, "UNKNOWN-FUNCTION",
			map[string]any{"path": "nope"}},
		{"not yet in version", func() response { return get(t, srv, "/api/1.0/newer") }, 404, "UNKNOWN-FUNCTION", nil},
		{"unknown version", func() response { return get(t, srv, "/api/9.9/echo") }, 404, "UNKNOWN-VERSION",
			map[string]any{"version": "9.9", "versions": []any{"1.0", "1.1"}}},
		{"bad version", func() response { return get(t, srv, "/api/1.x/echo") }, 404, "UNKNOWN-VERSION", nil},
		{"needs auth", func() response { return get(t, srv, "/api/private") }, 401, "API-AUTHENTICATION-NEEDED",
			map[string]any{"path": "private"}},
		{"internal hides detail", func() response { return get(t, srv, "/api/boom") }, 500, "INTERNAL-ERROR", nil},
		{"body not object", func() response { return post(t, srv, "/api/echo", "application/json", `[1,2]`) }, 400, "INVALID-JSON", nil},
		{"body not JSON", func() response { return post(t, srv, "/api/echo", "application/json", `{"a":`) }, 400, "INVALID-JSON", nil},
		{"deep nesting", func() response { return post(t, srv, "/api/echo", "application/json", `{"a":`+deep+`}`) }, 413, "REQUEST-TOO-LARGE",
			map[string]any{"limit": float64(registry.DefaultMaxBody)}},
		{"deep nesting in query", func() response {
			return get(t, srv, "/api/echo?a="+strings.Repeat("[", 5000)+strings.Repeat("]", 5000))
		}, 200, "", nil},
		{"duplicate in query", func() response { return get(t, srv, "/api/echo?a=1&a=2") }, 400, "INVALID-ARGUMENT",
			map[string]any{"name": "a"}},
		{"duplicate across query and body", func() response { return post(t, srv, "/api/echo?a=1", "application/json", `{"a":2}`) }, 400, "INVALID-ARGUMENT",
			map[string]any{"name": "a"}},
		{"odd content type", func() response { return post(t, srv, "/api/echo", "text/csv", "a,b") }, 415, "UNSUPPORTED-MEDIA-TYPE", nil},
		{"broken multipart", func() response {
			return post(t, srv, "/api/echo", "multipart/form-data; boundary=xx", "--xx\r\nbroken")
		}, 400, "INVALID-ARGUMENT", nil},
		{"multipart without boundary", func() response { return post(t, srv, "/api/echo", "multipart/form-data", "x") }, 400, "INVALID-ARGUMENT", nil},
		{"bad escape", func() response { return get(t, srv, "/api/echo?a=%zz") }, 400, "INVALID-ARGUMENT", nil},
		{"method", func() response {
			req, _ := http.NewRequest("PUT", srv.URL+"/api/echo", nil)
			return do(t, srv, req)
		}, 405, "METHOD-NOT-ALLOWED", nil},
		{"long URL", func() response { return get(t, srv, "/api/echo?a="+strings.Repeat("x", 20000)) }, 413, "REQUEST-TOO-LARGE", nil},
		{"empty path", func() response { return get(t, srv, "/api/") }, 404, "UNKNOWN-FUNCTION", nil},
		{"deep path", func() response { return get(t, srv, "/api/a/b/c") }, 404, "UNKNOWN-FUNCTION", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.res()
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.raw)
			}
			if tt.code == "" {
				return
			}
			if r.msg["type"] != "error" || r.msg["error"] != tt.code {
				t.Fatalf("got %s, want error %s", r.raw, tt.code)
			}
			for k, v := range tt.attrs {
				if fmt.Sprint(r.msg[k]) != fmt.Sprint(v) {
					t.Errorf("attribute %s = %v, want %v", k, r.msg[k], v)
				}
			}
			if strings.Contains(r.raw, "hunter2") {
				t.Errorf("internals leaked: %s", r.raw)
			}
		})
	}
}

func TestEchoAndTokensNeverReachFunction(t *testing.T) {
	t.Parallel()
	srv := newServer(t, transport.Config{})
	r := get(t, srv, `/api/echo?a=1&b="x"&big=12345678901234567890&_session=session:abc&_key=secret:xyz`)
	if r.raw != `{"type":"result","result":{"a":1,"b":"x","big":12345678901234567890}}` {
		t.Fatalf("echo = %s", r.raw)
	}
}

func TestStrictJSON(t *testing.T) {
	t.Parallel()
	srv := newServer(t, transport.Config{StrictJSON: true})
	r := get(t, srv, "/api/echo?user=admin")
	if r.status != 400 || r.msg["error"] != "INVALID-JSON" || r.msg["name"] != "user" {
		t.Fatalf("strict: %d %s", r.status, r.raw)
	}
	if r := get(t, srv, `/api/echo?user="admin"`); r.status != 200 {
		t.Fatalf("strict, quoted: %d %s", r.status, r.raw)
	}
}

func TestGetAPIVersion(t *testing.T) {
	t.Parallel()
	srv := newServer(t, transport.Config{})
	for path, want := range map[string]string{"/api/get-api-version": "1.1", "/api/1.0/get-api-version": "1.0"} {
		if r := get(t, srv, path); r.msg["result"] != want {
			t.Errorf("%s = %s, want %s", path, r.raw, want)
		}
	}
}
