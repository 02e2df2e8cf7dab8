package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/registry"
)

// lossyProxy forwards to srv the requests it gets, and loses the answer to the first one (it
// closes the connection once srv answered): the call ran, its caller never heard. It records
// the Idempotency-Key and the Idempotent-Replayed answer of each request.
type lossyProxy struct {
	*httptest.Server
	mu       sync.Mutex
	keys     []string
	replayed []string
}

func newLossyProxy(t *testing.T, srv *httptest.Server) *lossyProxy {
	p := &lossyProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		first := len(p.keys) == 0
		p.keys = append(p.keys, r.Header.Get("Idempotency-Key"))
		p.mu.Unlock()
		req, err := http.NewRequestWithContext(r.Context(), r.Method, srv.URL+r.URL.Path, r.Body)
		if err != nil {
			t.Error(err)
			return
		}
		req.Header = r.Header.Clone()
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Error(err)
		}
		p.mu.Lock()
		p.replayed = append(p.replayed, res.Header.Get("Idempotent-Replayed"))
		p.mu.Unlock()
		if first {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		for k, vs := range res.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(res.StatusCode)
		w.Write(body)
	}))
	t.Cleanup(p.Close)
	return p
}

// seen returns the keys and the Idempotent-Replayed answers of the requests so far.
func (p *lossyProxy) seen() (keys, replayed []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.keys), slices.Clone(p.replayed)
}

// createServer serves a function that changes things (it counts its runs) to the key
// "secret:k".
func createServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	runs := new(atomic.Int64)
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	reg.MustRegister("create", func(name string) int64 { return runs.Add(1) }, registry.Args("name"))
	auth := func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (any, error) {
			if c.Credentials.Key == "secret:k" {
				c.Identity = "someone"
			}
			return next(ctx, c)
		}
	}
	return serveTLS(t, reg, fnapi.WithInterceptors(auth)), runs
}

// TestRetryReplaysLostAnswer: the answer to a call that changes things is lost on the way;
// the client's retry carries the key of the first attempt, and the server answers it with the
// first answer: the function ran once.
func TestRetryReplaysLostAnswer(t *testing.T) {
	t.Parallel()
	srv, runs := createServer(t)
	p := newLossyProxy(t, srv)
	c, err := client.New(p.URL+"/api", client.WithAPIKey("secret:k"), client.WithRetries(2))
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := c.Call(context.Background(), "create", map[string]string{"name": "a"}, &id); err != nil || id != 1 {
		t.Fatalf("create = %d, %v; want 1 (the first run's answer)", id, err)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the function ran %d times, want once", n)
	}
	keys, replayed := p.seen()
	if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] {
		t.Fatalf("keys sent %q, want one key on both attempts", keys)
	}
	if replayed[1] != "true" {
		t.Fatalf("the retry's answer was not a replay: Idempotent-Replayed %q", replayed[1])
	}

	// A call of its own draws another key; a context's key is sent as it is.
	if err := c.Call(context.Background(), "create", map[string]string{"name": "b"}, &id); err != nil || id != 2 {
		t.Fatalf("second create = %d, %v", id, err)
	}
	ctx := client.WithIdempotencyKey(context.Background(), "kept by the program")
	if err := c.Call(ctx, "create", map[string]string{"name": "c"}, &id); err != nil || id != 3 {
		t.Fatalf("create with a key = %d, %v", id, err)
	}
	if err := c.Call(ctx, "create", map[string]string{"name": "c"}, &id); err != nil || id != 3 {
		t.Fatalf("create again with the key = %d, %v; want the first answer, 3", id, err)
	}
	if keys, _ = p.seen(); keys[2] == keys[0] || keys[3] != "kept by the program" {
		t.Fatalf("keys sent %q", keys)
	}
	if err := c.Call(ctx, "create", map[string]string{"name": "d"}, &id); !errors.Is(err, apierr.New(apierr.IdempotencyKeyReused)) {
		t.Fatalf("the key with other arguments = %v, want IDEMPOTENCY-KEY-REUSED (not retried)", err)
	}
}

// TestNoRetryByDefault: without WithRetries a lost answer is the caller's error, and no key
// is sent.
func TestNoRetryByDefault(t *testing.T) {
	t.Parallel()
	srv, runs := createServer(t)
	p := newLossyProxy(t, srv)
	c, err := client.New(p.URL+"/api", client.WithAPIKey("secret:k"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Call(context.Background(), "create", map[string]string{"name": "a"}, nil); err == nil {
		t.Fatal("a lost answer gave no error")
	}
	if keys, _ := p.seen(); runs.Load() != 1 || len(keys) != 1 || keys[0] != "" {
		t.Fatalf("runs %d, keys %q; want one run, one attempt, no key", runs.Load(), keys)
	}
}
