package transport_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/apitest"
	"github.com/fnapi/fnapi/internal/testutil"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// user is the identity testUsers sets: a fmt.Stringer, as auth's Identity.
type user string

func (u user) String() string { return string(u) }

// testUsers authenticates the API keys "alice:1", "alice:2" and "bob:1" as their users.
func testUsers(next registry.Handler) registry.Handler {
	return func(ctx context.Context, c *registry.Call) (any, error) {
		if c.Func.Access == decl.Public {
			return next(ctx, c)
		}
		name, _, ok := strings.Cut(c.Credentials.Key, ":")
		if !ok {
			return nil, apierr.New(apierr.AuthenticationNeeded, "path", c.Func.Name)
		}
		c.Identity = user(name)
		return next(ctx, c)
	}
}

// idemAPI serves functions that change things and count their runs.
type idemAPI struct {
	srv     *httptest.Server
	metrics *transport.Metrics
	runs    atomic.Int64
	release chan struct{} // slow-create waits for it
	clock   *fakeClock
}

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type created struct {
	Name string `json:"name"`
	Run  int64  `json:"run"`
}

func newIdemAPI(t *testing.T, lim transport.IdempotencyLimits) *idemAPI {
	t.Helper()
	a := &idemAPI{metrics: &transport.Metrics{}, release: make(chan struct{}), clock: &fakeClock{now: time.Unix(1e9, 0)}}
	lim.Now = a.clock.Now
	reg := registry.New()
	create := func(in struct {
		Name string `json:"name"`
	}) created {
		return created{in.Name, a.runs.Add(1)}
	}
	reg.MustRegister("create", create)
	reg.MustRegister("create-public", create, registry.Requires(decl.Public))
	reg.MustRegister("slow-create", func(ctx context.Context, in struct {
		Name string `json:"name"`
	}) (created, error) {
		n := a.runs.Add(1)
		select {
		case <-a.release:
			return created{in.Name, n}, nil
		case <-ctx.Done():
			return created{}, ctx.Err()
		}
	})
	reg.MustRegister("fail", func() error { a.runs.Add(1); return apierr.New(apierr.NotFound, "name", "x") })
	reg.MustRegister("big", func() string { a.runs.Add(1); return strings.Repeat("x", 200) })
	h, err := transport.New(reg, transport.Config{
		Interceptors:             []registry.Interceptor{testUsers},
		Metrics:                  a.metrics,
		Idempotency:              transport.NewMemoryIdempotency(lim),
		MaxIdempotentAnswerBytes: 150,
	})
	if err != nil {
		t.Fatal(err)
	}
	a.srv = apitest.Serve(t, h)
	return a
}

// call POSTs a JSON body to fn as the API key's user with the Idempotency-Key key.
func (a *idemAPI) call(t *testing.T, fn, apiKey, key, body string) (*http.Response, string) {
	t.Helper()
	return fetch(t, a.srv, "POST", "/api/"+fn, body, "Content-Type", "application/json", "Svc-Authorization", apiKey, "Idempotency-Key", key)
}

func replayed(r *http.Response) bool { return r.Header.Get("Idempotent-Replayed") == "true" }

func TestIdempotentReplay(t *testing.T) {
	t.Parallel()
	a := newIdemAPI(t, transport.IdempotencyLimits{})
	first, body := a.call(t, "create", "alice:1", "k1", `{"name":"d1"}`)
	if first.StatusCode != 200 || replayed(first) || body != `{"type":"result","result":{"name":"d1","run":1}}` {
		t.Fatalf("first call: %d %s replayed=%v", first.StatusCode, body, replayed(first))
	}
	if first.Header.Get("ETag") != "" {
		t.Errorf("a function that changes things answered ETag %q", first.Header.Get("ETag"))
	}
	// The same arguments, as JSON, a form, a query string, or with the user's other key.
	for _, repeat := range []func() (*http.Response, string){
		func() (*http.Response, string) { return a.call(t, "create", "alice:1", "k1", `{"name":"d1"}`) },
		func() (*http.Response, string) { return a.call(t, "create", "alice:2", "k1", `{"name":"d1"}`) },
		func() (*http.Response, string) {
			return fetch(t, a.srv, "POST", "/api/create", "name=d1", "Content-Type", "application/x-www-form-urlencoded", "Svc-Authorization", "alice:1", "Idempotency-Key", "k1")
		},
		func() (*http.Response, string) {
			return fetch(t, a.srv, "GET", "/api/create?name=d1", "", "Svc-Authorization", "alice:1", "Idempotency-Key", "k1")
		},
	} {
		res, b := repeat()
		if res.StatusCode != 200 || !replayed(res) || b != body || res.Header.Get("Content-Type") != "application/json" {
			t.Errorf("repeat: %d %s replayed=%v, want the first answer again, marked", res.StatusCode, b, replayed(res))
		}
	}
	// Another user's same key is another key.
	if res, b := a.call(t, "create", "bob:1", "k1", `{"name":"d1"}`); res.StatusCode != 200 || replayed(res) || !strings.Contains(b, `"run":2`) {
		t.Errorf("bob's call: %d %s replayed=%v, want a run of its own", res.StatusCode, b, replayed(res))
	}
	// Without a key, every call runs.
	if res, b := fetch(t, a.srv, "POST", "/api/create", `{"name":"d1"}`, "Content-Type", "application/json", "Svc-Authorization", "alice:1"); replayed(res) || !strings.Contains(b, `"run":3`) {
		t.Errorf("a call without a key: %s", b)
	}
	if n := a.runs.Load(); n != 3 {
		t.Errorf("%d runs, want 3", n)
	}
}

func TestIdempotencyKeyReused(t *testing.T) {
	t.Parallel()
	a := newIdemAPI(t, transport.IdempotencyLimits{})
	a.call(t, "create", "alice:1", "k", `{"name":"d1"}`)
	for _, c := range []struct{ fn, body string }{
		{"create", `{"name":"d2"}`},
		{"create", `{}`},
		{"fail", `{}`},
	} {
		res, b := a.call(t, c.fn, "alice:1", "k", c.body)
		if res.StatusCode != 422 || !strings.Contains(b, `"error":"IDEMPOTENCY-KEY-REUSED"`) || replayed(res) {
			t.Errorf("%s %s: %d %s, want 422 IDEMPOTENCY-KEY-REUSED", c.fn, c.body, res.StatusCode, b)
		}
	}
	if n := a.runs.Load(); n != 1 {
		t.Errorf("%d runs, want 1", n)
	}
}

func TestIdempotencyKeyMalformed(t *testing.T) {
	t.Parallel()
	a := newIdemAPI(t, transport.IdempotencyLimits{})
	for _, key := range []string{"", strings.Repeat("k", 256)} {
		res, b := a.call(t, "create", "alice:1", key, `{"name":"d1"}`)
		if res.StatusCode != 400 || !strings.Contains(b, `"error":"INVALID-ARGUMENT"`) || !strings.Contains(b, "Idempotency-Key") {
			t.Errorf("key of %d bytes: %d %s, want INVALID-ARGUMENT", len(key), res.StatusCode, b)
		}
	}
	res, b := fetch(t, a.srv, "POST", "/api/create", `{"name":"d1"}`, "Content-Type", "application/json", "Svc-Authorization", "alice:1", "Idempotency-Key", "a", "Idempotency-Key", "b")
	if res.StatusCode != 400 || !strings.Contains(b, "given more than once") {
		t.Errorf("two keys: %d %s", res.StatusCode, b)
	}
	if n := a.runs.Load(); n != 0 {
		t.Errorf("%d runs, want none", n)
	}
	long := strings.Repeat("k", 255) // at the bound
	a.call(t, "create", "alice:1", long, `{"name":"d1"}`)
	if res, _ := a.call(t, "create", "alice:1", long, `{"name":"d1"}`); !replayed(res) || a.runs.Load() != 1 {
		t.Errorf("a key of 255 bytes is not kept: replayed=%v, %d runs", replayed(res), a.runs.Load())
	}
}

// inFlight reads the calls of fn running from the metrics, as Prometheus would.
func (a *idemAPI) inFlight(fn string) string {
	w := httptest.NewRecorder()
	a.metrics.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	for line := range strings.Lines(w.Body.String()) {
		if v, ok := strings.CutPrefix(line, fmt.Sprintf("fnapi_in_flight{function=%q} ", fn)); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func TestIdempotentConcurrentRepeat(t *testing.T) {
	t.Parallel()
	a := newIdemAPI(t, transport.IdempotencyLimits{})
	type answer struct {
		res  *http.Response
		body string
	}
	answers := make(chan answer, 4)
	post := func() { // in a goroutine of its own: errors go to the channel, not t.Fatal
		req, _ := http.NewRequest("POST", a.srv.URL+"/api/slow-create", strings.NewReader(`{"name":"d1"}`))
		req.Header = http.Header{"Content-Type": {"application/json"}, "Svc-Authorization": {"alice:1"}, "Idempotency-Key": {"k"}}
		res, err := a.srv.Client().Do(req)
		if err != nil {
			answers <- answer{&http.Response{}, err.Error()}
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		answers <- answer{res, string(b)}
	}
	go post()
	testutil.Eventually(t, "the first call to run", func() bool { return a.runs.Load() == 1 })
	// A repeat whose caller goes away stops waiting.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", a.srv.URL+"/api/slow-create", strings.NewReader(`{"name":"d1"}`))
	req.Header = http.Header{"Content-Type": {"application/json"}, "Svc-Authorization": {"alice:1"}, "Idempotency-Key": {"k"}}
	gone := make(chan error, 1)
	go func() {
		_, err := a.srv.Client().Do(req)
		gone <- err
	}()
	testutil.Eventually(t, "the repeat to wait", func() bool { return a.inFlight("slow-create") == "2" })
	cancel()
	<-gone
	testutil.Eventually(t, "the repeat whose caller went away to end", func() bool { return a.inFlight("slow-create") == "1" })

	for range 3 {
		go post()
	}
	testutil.Eventually(t, "three repeats to wait", func() bool { return a.inFlight("slow-create") == "4" })
	close(a.release)
	var first string
	marked := 0
	for range 4 {
		an := <-answers
		if an.res.StatusCode != 200 {
			t.Fatalf("%d %s", an.res.StatusCode, an.body)
		}
		if first == "" {
			first = an.body
		}
		if an.body != first {
			t.Errorf("answers %s and %s differ", first, an.body)
		}
		if replayed(an.res) {
			marked++
		}
	}
	if n := a.runs.Load(); n != 1 || marked != 3 {
		t.Errorf("%d runs and %d answers marked replayed, want 1 and 3", n, marked)
	}
}

func TestIdempotentWhatIsKept(t *testing.T) {
	t.Parallel()
	a := newIdemAPI(t, transport.IdempotencyLimits{})
	// An error of the function is its answer: kept.
	res, body := a.call(t, "fail", "alice:1", "f", "{}")
	if res.StatusCode != 404 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if r, b := a.call(t, "fail", "alice:1", "f", "{}"); r.StatusCode != 404 || !replayed(r) || b != body {
		t.Errorf("the error was not replayed: %d %s", r.StatusCode, b)
	}
	// A call refused before the function ran keeps nothing: the key is free.
	if r, b := a.call(t, "create", "alice:1", "c", `{"name":1}`); r.StatusCode != 400 {
		t.Fatalf("bad argument: %d %s", r.StatusCode, b)
	}
	if r, b := a.call(t, "create", "alice:1", "c", `{"name":"d1"}`); r.StatusCode != 200 || replayed(r) {
		t.Errorf("after a refused call: %d %s replayed=%v, want a run", r.StatusCode, b, replayed(r))
	}
	// An answer too large to keep: a repeat gets CONFLICT, never a second run.
	if r, b := a.call(t, "big", "alice:1", "b", "{}"); r.StatusCode != 200 || len(b) < 200 {
		t.Fatalf("big: %d %s", r.StatusCode, b)
	}
	if r, b := a.call(t, "big", "alice:1", "b", "{}"); r.StatusCode != 409 || !replayed(r) || !strings.Contains(b, `"limit":150`) {
		t.Errorf("repeat of a large answer: %d %s", r.StatusCode, b)
	}
	// A public function runs without identity: the key is ignored.
	a.call(t, "create-public", "", "p", `{"name":"d1"}`)
	if r, _ := a.call(t, "create-public", "", "p", `{"name":"d1"}`); replayed(r) {
		t.Error("an anonymous call was replayed")
	}
	if n := a.runs.Load(); n != 5 {
		t.Errorf("%d runs, want 5 (fail, create, big, create-public twice)", n)
	}
}

func TestIdempotencyExpiry(t *testing.T) {
	t.Parallel()
	a := newIdemAPI(t, transport.IdempotencyLimits{})
	a.call(t, "create", "alice:1", "k", `{"name":"d1"}`)
	a.clock.advance(transport.IdempotencyTTL - time.Second)
	if r, _ := a.call(t, "create", "alice:1", "k", `{"name":"d1"}`); !replayed(r) {
		t.Fatal("not replayed within 24 hours")
	}
	a.clock.advance(time.Second)
	if r, b := a.call(t, "create", "alice:1", "k", `{"name":"d2"}`); r.StatusCode != 200 || replayed(r) || !strings.Contains(b, `"run":2`) {
		t.Errorf("after 24 hours: %d %s replayed=%v, want a new run", r.StatusCode, b, replayed(r))
	}
}

func TestIdempotencyBounds(t *testing.T) {
	t.Parallel()
	a := newIdemAPI(t, transport.IdempotencyLimits{MaxKeysPerCaller: 2, MaxKeys: 2})
	for _, k := range []string{"a1", "a2", "a3"} { // a1 goes: alice is at her bound
		a.call(t, "create", "alice:1", k, `{"name":"d"}`)
	}
	a.call(t, "create", "bob:1", "b1", `{"name":"d"}`) // a2 goes: the store is at its bound
	for _, c := range []struct {
		user, key string
		kept      bool
	}{{"alice:1", "a3", true}, {"bob:1", "b1", true}, {"alice:1", "a1", false}, {"alice:1", "a2", false}} {
		res, _ := a.call(t, "create", c.user, c.key, `{"name":"d"}`)
		if replayed(res) != c.kept {
			t.Errorf("%s %s: replayed=%v, want %v", c.user, c.key, replayed(res), c.kept)
		}
	}
}

// TestIdempotencyBoundsSpareOthers checks that callers who fill the store drop their own
// answers, not another caller's: alice's retry is replayed after mallory passed MaxBytes.
func TestIdempotencyBoundsSpareOthers(t *testing.T) {
	t.Parallel()
	a := newIdemAPI(t, transport.IdempotencyLimits{MaxBytes: 4000})
	a.call(t, "create", "alice:1", "rent", `{"name":"rent"}`)
	long := `{"name":"` + strings.Repeat("m", 100) + `"}`
	for i := range 20 {
		a.call(t, "create", "mallory:1", strconv.Itoa(i), long)
	}
	runs := a.runs.Load()
	if res, _ := a.call(t, "create", "alice:1", "rent", `{"name":"rent"}`); !replayed(res) || a.runs.Load() != runs {
		t.Errorf("alice's retry after mallory filled the store: replayed=%v, runs %d -> %d", replayed(res), runs, a.runs.Load())
	}
	if res, _ := a.call(t, "create", "mallory:1", "0", long); replayed(res) {
		t.Error("mallory's oldest answer was kept past MaxBytes")
	}
	if res, _ := a.call(t, "create", "mallory:1", "19", long); !replayed(res) {
		t.Error("mallory's newest answer was dropped")
	}
}

// fingerprints is an IdempotencyStore that records the fingerprints it is given.
type fingerprints struct {
	*transport.MemoryIdempotency
	mu  sync.Mutex
	fps map[string][32]byte // by key
}

func (f *fingerprints) Begin(ctx context.Context, scope, key string, fp [32]byte) (*transport.IdempotentAnswer, error) {
	f.mu.Lock()
	f.fps[key] = fp
	f.mu.Unlock()
	return f.MemoryIdempotency.Begin(ctx, scope, key, fp)
}

// TestIdempotencyFingerprintKeyed checks that the fingerprint a store keeps of the arguments
// depends on the Idempotency-Key: a reader of the store cannot test guesses of an argument (a
// new password) against it without the key.
func TestIdempotencyFingerprintKeyed(t *testing.T) {
	t.Parallel()
	store := &fingerprints{MemoryIdempotency: transport.NewMemoryIdempotency(transport.IdempotencyLimits{}), fps: map[string][32]byte{}}
	reg := registry.New()
	reg.MustRegister("set-password", func(in struct {
		Password string `json:"password"`
	}) bool {
		return true
	})
	h, err := transport.New(reg, transport.Config{Interceptors: []registry.Interceptor{testUsers}, Idempotency: store})
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.Serve(t, h)
	for _, key := range []string{"k1", "k2"} {
		if res, body := fetch(t, srv, "POST", "/api/set-password", `{"password":"Summer2026!"}`, "Content-Type", "application/json",
			"Svc-Authorization", "alice:1", "Idempotency-Key", key); res.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", res.StatusCode, body)
		}
	}
	if fp1, fp2 := store.fps["k1"], store.fps["k2"]; fp1 == fp2 || fp1 == ([32]byte{}) {
		t.Errorf("the same arguments under two keys have the fingerprint %x and %x: not keyed", fp1, fp2)
	}
}
