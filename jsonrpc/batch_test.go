package jsonrpc_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

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
