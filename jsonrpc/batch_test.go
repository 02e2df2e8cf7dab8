package jsonrpc_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/registry"
)

// TestBatchStopsWhenClientLeaves: once the client of a batch goes away, the calls of the batch
// not yet run do not run (they used to run one after the other, each with a context already
// done, holding the handler to the end of the batch).
func TestBatchStopsWhenClientLeaves(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	var runs atomic.Int64
	started := make(chan struct{}, 10)
	reg.MustRegister("slow", func(ctx context.Context) bool {
		runs.Add(1)
		started <- struct{}{}
		<-ctx.Done() // takes its whole deadline: the default, 60 s
		return true
	}, registry.Requires(decl.Public))
	h, err := fnapi.New(reg, fnapi.WithJSONRPC(jsonrpc.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(served)
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	body := "[" + strings.Repeat(`{"jsonrpc":"2.0","method":"slow"},`, 9) + `{"jsonrpc":"2.0","method":"slow"}]`
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/jsonrpc", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	go func() {
		<-started // the first call runs: the client leaves
		cancel()
	}()
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
		t.Fatalf("the batch answered %d, want the client's request cancelled", res.StatusCode)
	}
	<-served
	if n := runs.Load(); n != 1 {
		t.Errorf("%d calls of the batch ran, want 1: the batch kept calling after its client went away", n)
	}
}

// TestBatchTimeout: a batch has one deadline, Options.BatchTimeout, for all its calls: the
// call running at it ends with TIMEOUT, and the calls after it are answered TIMEOUT without
// running (each used to get its own call deadline: 100 calls, 100 × CallTimeout).
func TestBatchTimeout(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	var runs atomic.Int64
	reg.MustRegister("slow", func(ctx context.Context) (bool, error) {
		runs.Add(1)
		<-ctx.Done() // takes its whole deadline: the call's is 1 h, the batch's sooner
		return false, ctx.Err()
	}, registry.Requires(decl.Public))
	h, err := fnapi.New(reg, fnapi.WithCallTimeout(time.Hour),
		fnapi.WithJSONRPC(jsonrpc.Options{BatchTimeout: 50 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	body := `[{"jsonrpc":"2.0","id":1,"method":"slow"},{"jsonrpc":"2.0","method":"slow"},{"jsonrpc":"2.0","id":3,"method":"slow"}]`
	res, err := http.Post(srv.URL+"/jsonrpc", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var out []struct {
		ID    int
		Error *struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(b, &out); err != nil || len(out) != 2 {
		t.Fatalf("answer %d %s, want two responses", res.StatusCode, b)
	}
	for _, r := range out {
		if r.Error == nil || r.Error.Message != "TIMEOUT" {
			t.Errorf("response %d: %s, want TIMEOUT", r.ID, b)
		}
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("%d calls ran, want 1: the calls after the batch's deadline must not run", n)
	}
	// A single request has its call's deadline, not the batch's.
	reg2 := registry.New()
	reg2.MustRegister("wait", func(ctx context.Context) string {
		select {
		case <-ctx.Done():
			return "cut"
		case <-time.After(100 * time.Millisecond):
			return "done"
		}
	}, registry.Requires(decl.Public))
	h2, err := fnapi.New(reg2, fnapi.WithJSONRPC(jsonrpc.Options{BatchTimeout: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	srv2 := httptest.NewServer(h2)
	defer srv2.Close()
	res, err = http.Post(srv2.URL+"/jsonrpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"wait"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if b, _ := io.ReadAll(res.Body); string(b) != `{"jsonrpc":"2.0","id":1,"result":"done"}` {
		t.Errorf("a single request: %s, want its result", b)
	}
}
