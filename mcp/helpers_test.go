package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

// errBoom is a declared error with an attribute, as an application declares its own.
var errBoom = apierr.Declare("BOOM", 400, "The function failed on purpose.", apierr.Attr("at", "where").Typed("integer"))

// server is an MCP and JSON-RPC endpoint over real TLS, with authentication: users admin and
// reader (read-only), each with an API key.
type server struct {
	t                   *testing.T
	srv                 *httptest.Server
	adminKey, readerKey string
}

func newServer(t *testing.T) *server {
	t.Helper()
	return newServerWith(t, mcp.Options{})
}

// newServerWith is newServer with the bounds on sessions of opts.
func newServerWith(t *testing.T, opts mcp.Options) *server {
	t.Helper()
	a, err := auth.New(auth.NewMemoryStore(), auth.WithArgon2(auth.Argon2{Memory: 64, Iterations: 1, Parallelism: 1}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	a.MustRegister(reg)
	reg.MustRegister("add", func(in struct {
		A int `json:"a" jsonschema:"description=the first term"`
		B int `json:"b" jsonschema:"description=the second term"`
	}) int {
		return in.A + in.B
	}, registry.ReadOnly(), registry.Requires(authapi.RoleReadOnly), registry.Describe("Adds two integers."))
	reg.MustRegister("touch", func(ctx context.Context) string { return auth.FromContext(ctx).User })
	reg.MustRegister("boom", func() error { return apierr.New(errBoom, "at", 7) }, registry.Errors(errBoom),
		registry.ReadOnly(), registry.Requires(authapi.RoleReadOnly))
	// count streams n chunks, each with its progress, waiting for wait between them.
	reg.MustRegister("count", func(ctx context.Context, in struct {
		N    int `json:"n"`
		Wait int `json:"wait_ms,omitempty"`
	}, s *stream.Sender[map[string]any]) error {
		for i := 1; i <= in.N; i++ {
			if err := s.Send(map[string]any{"i": i, "progress": float64(i) / float64(in.N)}); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(in.Wait) * time.Millisecond):
			}
		}
		return nil
	}, registry.ReadOnly(), registry.Requires(authapi.RoleReadOnly))
	reg.MustRegister("guide", func(in struct {
		Topic string `json:"topic" jsonschema:"description=what to explain"`
	}) string {
		return "Explain " + in.Topic
	}, registry.ReadOnly(), registry.Requires(authapi.RoleReadOnly))
	ctx := context.Background()
	for user, role := range map[string]authapi.Role{"admin": authapi.RoleAdmin, "reader": authapi.RoleReadOnly} {
		if err := a.CreateUser(ctx, user, "password of "+user, role); err != nil && !errors.Is(err, auth.ErrExists) {
			t.Fatal(err)
		}
	}
	h, err := fnapi.New(reg, fnapi.WithInterceptors(a.Interceptor()),
		fnapi.WithMCP(mcp.Options{
			PageSize: 3,
			Resources: []mcp.Resource{{URI: "doc://api", Name: "api", Function: "doc"},
				{URI: "text://static", Name: "static", Text: "static text"}},
			Prompts: []mcp.Prompt{{Name: "explain", Function: "guide"},
				{Name: "hello", Description: "Says hello.", Text: "Say hello."}},
			Descriptions:      map[string]string{"add": "Adds a and b: use it for sums."},
			MaxSessions:       opts.MaxSessions,
			SessionsPerCaller: opts.SessionsPerCaller,
		}),
		fnapi.WithJSONRPC(jsonrpc.Options{MaxBatch: 5}))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	s.adminKey = s.key("admin")
	s.readerKey = s.key("reader")
	return s
}

// serve serves h mounted at /api over real TLS.
func serve(t *testing.T, h http.Handler) *server {
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", h))
	s := &server{t: t, srv: httptest.NewTLSServer(mux)}
	t.Cleanup(s.srv.Close)
	return s
}

// key logs user in and makes an API key.
func (s *server) key(user string) string { return s.keyNamed(user, "mcp") }

// keyNamed logs user in and makes an API key of that name.
func (s *server) keyNamed(user, name string) string {
	var sess, key string
	s.plain("login", map[string]any{"user": user, "password": "password of " + user}, &sess)
	s.plain("create-api-key", map[string]any{"name": name, "_session": sess}, &key)
	return key
}

// plain calls fn over fnapi's HTTP binding.
func (s *server) plain(fn string, args map[string]any, out any) {
	s.t.Helper()
	b, _ := json.Marshal(args)
	res, err := s.srv.Client().Post(s.srv.URL+"/api/"+fn, "application/json", bytes.NewReader(b))
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	var msg struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.NewDecoder(res.Body).Decode(&msg); err != nil || json.Unmarshal(msg.Result, out) != nil {
		s.t.Fatalf("%s: status %d, %v", fn, res.StatusCode, err)
	}
}

// answer is an HTTP answer: status, headers, body, and the JSON-RPC messages in it (one, or
// each event of a stream).
type answer struct {
	status int
	header http.Header
	body   string
	msgs   []map[string]any
}

// last is the last message: the response.
func (a answer) last() map[string]any {
	if len(a.msgs) == 0 {
		return nil
	}
	return a.msgs[len(a.msgs)-1]
}

// errCode is the response's error code, 0 without error.
func (a answer) errCode() int {
	e, _ := a.last()["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return int(c)
}

func (a answer) result() map[string]any {
	r, _ := a.last()["result"].(map[string]any)
	return r
}

// send posts body to path with headers (name, value pairs).
func (s *server) send(method, path, body string, headers ...string) answer {
	s.t.Helper()
	req, _ := http.NewRequest(method, s.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := s.srv.Client().Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, header: res.Header, body: string(b)}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(a.body, "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				var m map[string]any
				if err := json.Unmarshal([]byte(d), &m); err != nil {
					s.t.Fatalf("event is not JSON: %q", d)
				}
				a.msgs = append(a.msgs, m)
			}
		}
	} else if len(b) > 0 && b[0] == '{' {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			s.t.Fatalf("body is not JSON: %q", b)
		}
		a.msgs = []map[string]any{m}
	}
	return a
}

// session initializes an MCP session with the key and returns a function that sends a request
// in it.
func (s *server) session(key string) (id string, do func(body string, headers ...string) answer) {
	s.t.Helper()
	a := s.send("POST", "/api/mcp", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		"Authorization", "Bearer "+key)
	id = a.header.Get("Mcp-Session-Id")
	if a.status != 200 || id == "" {
		s.t.Fatalf("initialize: %d %s", a.status, a.body)
	}
	return id, func(body string, headers ...string) answer {
		s.t.Helper()
		h := append([]string{"Authorization", "Bearer " + key, "Mcp-Session-Id", id, "MCP-Protocol-Version", "2025-11-25"}, headers...)
		return s.send("POST", "/api/mcp", body, h...)
	}
}
