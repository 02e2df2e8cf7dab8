package manage_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"go.uber.org/zap/zaptest"

	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/fnapi/fnapi/internal/apitest"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// testKey is the token the test interceptor accepts.
const testKey = "secret:test"

// fakeAuth admits calls that carry testKey (as the user tester) or "secret:as:" and a user
// name (as that user), so that token functions are callable before package auth is wired in.
// The real authentication is tested end-to-end in the app's tests.
func fakeAuth(next registry.Handler) registry.Handler {
	return func(ctx context.Context, c *registry.Call) (any, error) {
		switch k := c.Credentials.Key; {
		case k == testKey:
			c.Identity = &auth.Identity{User: "tester", Role: authapi.RoleAdmin, Admin: true}
		case strings.HasPrefix(k, "secret:as:"):
			c.Identity = &auth.Identity{User: strings.TrimPrefix(k, "secret:as:"), Role: authapi.RoleUser}
		}
		return next(ctx, c)
	}
}

// env is a server of the management functions over real TLS.
type env struct {
	t        *testing.T
	srv      *httptest.Server
	store    *statedb.SQLite
	settings *manage.Settings
	resolver *netctx.Resolver // the zones and applications the functions apply
}

func newEnv(t *testing.T, opts ...statedb.Option) *env {
	t.Helper()
	ctx := context.Background()
	st, err := statedb.OpenSQLite(ctx, t.TempDir(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	settings, err := manage.NewSettings(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	manage.MustRegister(reg, st, settings)
	resolver := netctx.NewResolver()
	if err := manage.RegisterContext(reg, st, resolver.Set); err != nil {
		t.Fatal(err)
	}
	h, err := transport.New(reg, transport.Config{Interceptors: []registry.Interceptor{fakeAuth,
		manage.AuditInterceptor(st, zaptest.NewLogger(t))}})
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.Serve(t, h)
	return &env{t: t, srv: srv, store: st, settings: settings, resolver: resolver}
}

// reply is one answer: the HTTP status and the JSON message.
type reply struct {
	status int
	msg    map[string]any
	raw    string
}

func (r reply) ok() bool { return r.status == 200 && r.msg["type"] == "result" }

// result decodes the result into v.
func (r reply) result(t *testing.T, v any) {
	t.Helper()
	if !r.ok() {
		t.Fatalf("not a result: %d %s", r.status, r.raw)
	}
	var m struct{ Result json.RawMessage }
	if err := json.Unmarshal([]byte(r.raw), &m); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(m.Result, v); err != nil {
		t.Fatalf("result %s: %v", m.Result, err)
	}
}

// call posts args as a JSON body, with the test token unless anonymous.
func (e *env) call(fn string, args map[string]any) reply {
	return e.do(fn, args, true)
}

// callAs posts args as a JSON body, as the user.
func (e *env) callAs(user, fn string, args map[string]any) reply {
	return e.post(fn, args, "secret:as:"+user)
}

func (e *env) do(fn string, args map[string]any, withToken bool) reply {
	tok := ""
	if withToken {
		tok = testKey
	}
	return e.post(fn, args, tok)
}

func (e *env) post(fn string, args map[string]any, tok string) reply {
	e.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	body, err := json.Marshal(args)
	if err != nil {
		e.t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/"+fn, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if tok != "" {
		req.Header.Set("Svc-Authorization", tok)
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	r := reply{status: res.StatusCode, raw: string(b)}
	if err := json.Unmarshal(b, &r.msg); err != nil {
		e.t.Fatalf("%s: body is not one JSON message: %q", fn, b)
	}
	return r
}

// must calls fn and fails the test unless it answers a result, which it decodes into v.
func (e *env) must(fn string, args map[string]any, v any) {
	e.t.Helper()
	r := e.call(fn, args)
	if !r.ok() {
		e.t.Fatalf("%s(%v): %d %s", fn, args, r.status, r.raw)
	}
	if v != nil {
		r.result(e.t, v)
	}
}

// snapshot is everything the functions can show: every dashboard with its widgets, and the
// configuration, as raw JSON.
func (e *env) snapshot() string {
	e.t.Helper()
	var list []map[string]any
	e.must("list-dashboards", nil, &list)
	var all []json.RawMessage
	for _, d := range list {
		var full json.RawMessage
		e.must("get-dashboard", map[string]any{"id": d["id"]}, &full)
		all = append(all, full)
	}
	var cfg json.RawMessage
	e.must("get-config", nil, &cfg)
	b, _ := json.Marshal(map[string]any{"dashboards": all, "config": cfg})
	return string(b)
}
