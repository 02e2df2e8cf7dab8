package fnapi_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/internal/apitest"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// TestWithIdempotencyStore: the answers of Idempotency-Key calls go to the store given, and
// the answer size limit applies. The identity here is no fmt.Stringer: the caller is its token.
func TestWithIdempotencyStore(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	var runs atomic.Int64
	reg.MustRegister("add-one", func() int64 { return runs.Add(1) })
	reg.MustRegister("add-many", func() string { runs.Add(1); return strings.Repeat("x", 100) })
	keyed := func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (any, error) {
			c.Identity = c.Credentials.Key
			return next(ctx, c)
		}
	}
	store := transport.NewMemoryIdempotency(transport.IdempotencyLimits{})
	api, err := fnapi.New(reg, fnapi.WithInterceptors(keyed), fnapi.WithIdempotencyStore(store), fnapi.WithMaxIdempotentAnswerBytes(64))
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.Serve(t, api)
	call := func(fn, key string) (int, string) {
		req, _ := http.NewRequest("POST", srv.URL+"/api/"+fn, nil)
		req.Header.Set("Svc-Authorization", key)
		req.Header.Set("Idempotency-Key", "once")
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, c := range []struct {
		fn, key string
		status  int
		answer  string
	}{
		{"add-one", "k1", 200, `{"type":"result","result":1}`},
		{"add-one", "k1", 200, `{"type":"result","result":1}`}, // replayed
		{"add-one", "k2", 200, `{"type":"result","result":2}`}, // another token, another caller
		{"add-many", "k3", 200, `"result":"xxx`},
		{"add-many", "k3", 409, `"error":"CONFLICT"`}, // over 64 bytes: not kept
	} {
		if status, b := call(c.fn, c.key); status != c.status || !strings.Contains(b, c.answer) {
			t.Errorf("%s as %s: %d %s, want %d %s", c.fn, c.key, status, b, c.status, c.answer)
		}
	}
	if n := store.Len(); n != 3 {
		t.Errorf("the store holds %d keys, want 3", n)
	}
}
