package auth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// clock is a settable clock for the Authenticator.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// observe returns a logger at debug level and the entries it records.
func observe() (*zap.Logger, *observer.ObservedLogs) {
	core, logs := observer.New(zapcore.DebugLevel)
	return zap.New(core), logs
}

// logText returns every entry of logs as a JSON encoder writes it, one a line: what an
// operator would read, to look for secrets in.
func logText(t *testing.T, logs *observer.ObservedLogs) string {
	t.Helper()
	enc := zapcore.NewJSONEncoder(zap.NewDevelopmentEncoderConfig())
	var b strings.Builder
	for _, e := range logs.All() {
		buf, err := enc.EncodeEntry(e.Entry, e.Context)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(buf.Bytes())
		buf.Free()
	}
	return b.String()
}

// cheap is a password cost for tests: the real cost is measured in the benchmarks.
var cheap = auth.WithArgon2(auth.Argon2{Memory: 64, Iterations: 1, Parallelism: 1})

// env is a server with authentication over real TLS, its clock and its logs.
type env struct {
	t     *testing.T
	srv   *httptest.Server
	a     *auth.Authenticator
	store auth.Store
	clock *clock
	logs  *observer.ObservedLogs
	read  atomic.Int64 // request body bytes the server read
}

const adminPassword = "correct horse battery staple"

func newEnv(t *testing.T, store auth.Store, opts ...auth.Option) *env {
	t.Helper()
	e := &env{t: t, store: store, clock: newClock()}
	log, logs := observe()
	e.logs = logs
	opts = append([]auth.Option{cheap, auth.WithClock(e.clock.now), auth.WithLogger(log)}, opts...)
	a, err := auth.New(store, opts...)
	if err != nil {
		t.Fatal(err)
	}
	e.a = a
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	a.MustRegister(reg)
	// ingest stands for a function that takes large bodies, from callers with a token.
	reg.MustRegister("ingest", func(in struct {
		Data string `json:"data"`
	}) int {
		return len(in.Data)
	}, registry.MaxBody(64<<20))
	// follow stands for a follow stream: a chunk every 20 ms until the call ends.
	reg.MustRegister("follow", func(ctx context.Context, s *stream.Sender[int]) error {
		for i := 0; ; i++ {
			if err := s.Send(i); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return nil // a follow stream ends quietly when its caller goes
			case <-time.After(20 * time.Millisecond):
			}
		}
	}, registry.ReadOnly())
	// touch stands for any function that may change something: not marked read-only.
	reg.MustRegister("touch", func(ctx context.Context) string { return auth.FromContext(ctx).User })
	reg.MustRegister("need-session", func(ctx context.Context) string { return auth.FromContext(ctx).User },
		registry.Requires(decl.Session))
	if err := a.CreateUser(context.Background(), "admin", adminPassword, authapi.RoleAdmin); err != nil && !errors.Is(err, auth.ErrExists) {
		t.Fatal(err)
	}
	h, err := fnapi.New(reg, fnapi.WithInterceptors(a.Interceptor()), fnapi.WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", h))
	e.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = countingBody{r.Body, &e.read}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

// countingBody counts the bytes read of a request body.
type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// response is one answer: status, the message and the raw response.
type response struct {
	status int
	msg    map[string]any
	raw    string
	header http.Header
}

func (r response) ok() bool { return r.status == 200 && r.msg["type"] == "result" }

func (r response) code() string { s, _ := r.msg["error"].(string); return s }

func (r response) result() string { s, _ := r.msg["result"].(string); return s }

func (e *env) do(req *http.Request) response {
	e.t.Helper()
	return e.doWith(e.srv.Client(), req)
}

// doWith sends req with client and reads its answer.
func (e *env) doWith(client *http.Client, req *http.Request) response {
	e.t.Helper()
	res, err := client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	r := response{status: res.StatusCode, raw: string(b), header: res.Header}
	if err := json.Unmarshal(b, &r.msg); err != nil {
		e.t.Fatalf("body is not one JSON message: %q", b)
	}
	return r
}

// get calls fn with query arguments (values JSON-encoded) and headers set by mod.
func (e *env) get(fn string, args map[string]any, mod func(*http.Request)) response {
	e.t.Helper()
	q := url.Values{}
	for k, v := range args {
		b, _ := json.Marshal(v)
		q.Set(k, string(b))
	}
	req, _ := http.NewRequest("GET", e.srv.URL+"/api/"+fn+"?"+q.Encode(), nil)
	if mod != nil {
		mod(req)
	}
	return e.do(req)
}

// post calls fn with a JSON body.
func (e *env) post(fn string, args map[string]any, mod func(*http.Request)) response {
	e.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	b, _ := json.Marshal(args)
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/"+fn, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if mod != nil {
		mod(req)
	}
	return e.do(req)
}

// eachMethod calls fn over GET and over POST, with the same arguments and headers.
func (e *env) eachMethod(fn string, args map[string]any, mod func(*http.Request)) []response {
	e.t.Helper()
	return []response{e.get(fn, args, mod), e.post(fn, args, mod)}
}

// login logs in and returns the session ID.
func (e *env) login(user, password string) string {
	e.t.Helper()
	r := e.post("login", map[string]any{"user": user, "password": password}, nil)
	if !r.ok() || !strings.HasPrefix(r.result(), "session:") {
		e.t.Fatalf("login %s: %d %s", user, r.status, r.raw)
	}
	return r.result()
}

// createKey makes an API key with a session.
func (e *env) createKey(session, name string) string {
	e.t.Helper()
	r := e.get("create-api-key", map[string]any{"name": name, "_session": session}, nil)
	if !r.ok() || !strings.HasPrefix(r.result(), "secret:") {
		e.t.Fatalf("create-api-key: %d %s", r.status, r.raw)
	}
	return r.result()
}

func withSession(s string) map[string]any { return map[string]any{"_session": s} }
func withKey(k string) map[string]any     { return map[string]any{"_key": k} }

func cookie(s string) func(*http.Request) {
	return func(r *http.Request) { r.AddCookie(&http.Cookie{Name: "Svc-Session", Value: s}) }
}

// sameOrigin is what a browser adds to a request of a page of the server's own origin.
func sameOrigin(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "same-origin") }

func header(name, value string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set(name, value) }
}

func both(mods ...func(*http.Request)) func(*http.Request) {
	return func(r *http.Request) {
		for _, m := range mods {
			m(r)
		}
	}
}

// wantAuthNeeded checks an API-AUTHENTICATION-NEEDED answer for fn.
func wantAuthNeeded(t *testing.T, r response, fn string) {
	t.Helper()
	if r.status != 401 || r.code() != "API-AUTHENTICATION-NEEDED" || r.msg["path"] != fn {
		t.Fatalf("got %d %s, want 401 API-AUTHENTICATION-NEEDED path %s", r.status, r.raw, fn)
	}
}
