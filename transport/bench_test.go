package transport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// handWritten is the floor any framework pays: a net/http handler that reads the same
// query-string arguments as JSON values and answers the same result message.
func handWritten(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		http.Error(w, `{"type":"error","error":"INVALID-ARGUMENT"}`, http.StatusBadRequest)
		return
	}
	args := make(map[string]json.RawMessage, len(q))
	for k, v := range q {
		if json.Valid([]byte(v[0])) {
			args[k] = json.RawMessage(v[0])
		} else {
			args[k], _ = json.Marshal(v[0])
		}
	}
	b, err := json.Marshal(struct {
		Type   string                     `json:"type"`
		Result map[string]json.RawMessage `json:"result"`
	}{"result", args})
	if err != nil {
		http.Error(w, `{"type":"error","error":"INTERNAL-ERROR"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func echoHandler(b *testing.B) http.Handler {
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	h, err := transport.New(reg, transport.Config{})
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// BenchmarkEcho compares an echo call {a: 1, b: "x"} through the whole fnapi HTTP handler with
// the hand-written handler doing the same JSON work. Compare ns/op and allocs/op of the two.
func BenchmarkEcho(b *testing.B) {
	const target = `/echo?a=1&b=%22x%22`
	run := func(b *testing.B, h http.Handler) {
		req := httptest.NewRequest("GET", target, nil)
		b.ReportAllocs()
		for b.Loop() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 || !strings.Contains(w.Body.String(), `"result":{`) {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	}
	b.Run("fnapi", func(b *testing.B) { run(b, echoHandler(b)) })
	b.Run("net-http", func(b *testing.B) { run(b, http.HandlerFunc(handWritten)) })
}

// BenchmarkEchoJSONBody is the same call with a POSTed JSON body. The request is made once and
// its body reset for each call, as BenchmarkEcho reuses its request, so that allocs/op counts
// the handler's work.
func BenchmarkEchoJSONBody(b *testing.B) {
	h := echoHandler(b)
	const body = `{"a":1,"b":"x"}`
	rd := strings.NewReader(body)
	req := httptest.NewRequest("POST", "/echo", rd)
	req.Header.Set("Content-Type", "application/json")
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(body)
		req.Body = io.NopCloser(rd)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

// listItem is an item of a list a read-only function answers, as a dashboard list.
type listItem struct {
	ID      int64   `json:"id"`
	Title   string  `json:"title"`
	Owner   string  `json:"owner"`
	Widgets []int64 `json:"widgets"`
	Score   float64 `json:"score"`
}

// BenchmarkReadOnlyGET is a GET of a function that changes nothing, answering a list of 1 item
// (a 112-byte message) and of 32 (2.8 KB): "tagged" is it declared registry.ReadOnly (its
// answer carries an ETag, a hash of the message), "untagged" the same function without
// it; "not-modified" a GET whose If-None-Match holds the tag (answered 304). The difference of
// tagged and untagged is the ETag's cost.
func BenchmarkReadOnlyGET(b *testing.B) {
	for _, n := range []int{1, 32} {
		h, tag := readOnlyHandler(b, n)
		run := func(b *testing.B, path, inm string, status int) {
			req := httptest.NewRequest("GET", path, nil)
			if inm != "" {
				req.Header.Set("If-None-Match", inm)
			}
			b.ReportAllocs()
			defer cpuPerOp(b)()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != status {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		}
		b.Run(fmt.Sprintf("untagged/%d", n), func(b *testing.B) { run(b, "/untagged", "", 200) })
		b.Run(fmt.Sprintf("tagged/%d", n), func(b *testing.B) { run(b, "/tagged", "", 200) })
		b.Run(fmt.Sprintf("not-modified/%d", n), func(b *testing.B) { run(b, "/tagged", tag, 304) })
	}
}

// readOnlyHandler serves a list of n items as "tagged", a function declared registry.ReadOnly,
// and as "untagged", the same without; tag is the ETag of tagged's answer.
func readOnlyHandler(b *testing.B, n int) (h http.Handler, tag string) {
	list := make([]listItem, n)
	for i := range list {
		list[i] = listItem{int64(i), fmt.Sprint("Dashboard number ", i), "alice", []int64{1, 2, 3, 4}, 0.5 * float64(i)}
	}
	reg := registry.New()
	reg.MustRegister("tagged", func() []listItem { return list }, registry.Requires(decl.Public), registry.ReadOnly())
	reg.MustRegister("untagged", func() []listItem { return list }, registry.Requires(decl.Public))
	h, err := transport.New(reg, transport.Config{})
	if err != nil {
		b.Fatal(err)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/tagged", nil))
	return h, w.Header().Get("ETag")
}

// BenchmarkIdempotentWrite is a POST of a function that changes things, with a JSON body:
// without Idempotency-Key, with a new key each call (claimed, answered and kept; past 1,000
// keys the caller's oldest is dropped, as in a long run), and repeating one key (replayed).
func BenchmarkIdempotentWrite(b *testing.B) {
	reg := registry.New()
	reg.MustRegister("create", func(in struct {
		Title string `json:"title"`
	}) map[string]any {
		return map[string]any{"id": 1, "title": in.Title}
	})
	who := func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (any, error) {
			c.Identity = "bench"
			return next(ctx, c)
		}
	}
	h, err := transport.New(reg, transport.Config{Interceptors: []registry.Interceptor{who}})
	if err != nil {
		b.Fatal(err)
	}
	const body = `{"title":"Traffic by application"}`
	run := func(b *testing.B, key func() string, replayed string) {
		rd := strings.NewReader(body)
		req := httptest.NewRequest("POST", "/create", rd)
		req.Header.Set("Content-Type", "application/json")
		b.ReportAllocs()
		for b.Loop() {
			rd.Reset(body)
			req.Body = io.NopCloser(rd)
			if k := key(); k != "" {
				req.Header["Idempotency-Key"] = []string{k}
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 || w.Header().Get("Idempotent-Replayed") != replayed {
				b.Fatalf("%d %s %v", w.Code, w.Body, w.Header())
			}
		}
	}
	seq := 0 // keys stay new across the rounds of b.Loop
	b.Run("no-key", func(b *testing.B) { run(b, func() string { return "" }, "") })
	b.Run("new-key", func(b *testing.B) { run(b, func() string { seq++; return "k" + strconv.Itoa(seq) }, "") })
	h.ServeHTTP(httptest.NewRecorder(), func() *http.Request {
		r := httptest.NewRequest("POST", "/create", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Idempotency-Key", "same")
		return r
	}())
	b.Run("replay", func(b *testing.B) { run(b, func() string { return "same" }, "true") })
}

// cpuPerOp reports the process's CPU time (user and system, every goroutine, the garbage
// collector's too) per operation as cpu-ns/op, from the call until the returned function runs:
// on a busy machine it is steadier than ns/op, which counts waiting for a core.
func cpuPerOp(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
