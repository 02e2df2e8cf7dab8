package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/apitest"
	"github.com/fnapi/fnapi/registry"
)

type BoardArgs struct {
	ID   int    `json:"id"`
	Name string `json:"name,omitempty"`
}

type Board struct {
	ID      int    `json:"id"`
	Title   string `json:"title"`
	Version int64  `json:"version"`
}

var GetBoard = decl.Func[BoardArgs, Board]("get-board", decl.Requires(decl.Public), decl.ReadOnly())

// boardServer serves GetBoard over TLS at /api, answering the board's current version, and
// records the method, status and body bytes of each answer.
type boardServer struct {
	*httptest.Server
	version atomic.Int64
	mu      sync.Mutex
	answers []string // "GET 200"
	bytes   int
}

func newBoardServer(t *testing.T) *boardServer {
	b := &boardServer{}
	reg := registry.New()
	registry.MustImplement(reg, GetBoard, func(_ context.Context, in BoardArgs) (Board, error) {
		return Board{ID: in.ID, Title: "traffic of " + in.Name, Version: b.version.Load()}, nil
	})
	h, err := fnapi.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	b.Server = apitest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		b.mu.Lock()
		b.answers = append(b.answers, r.Method+" "+http.StatusText(rec.status))
		b.bytes += rec.n
		b.mu.Unlock()
	}))
	return b
}

// answered returns the answers recorded since the last call, and their body bytes.
func (b *boardServer) answered() ([]string, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, n := b.answers, b.bytes
	b.answers, b.bytes = nil, 0
	return a, n
}

type recorder struct {
	http.ResponseWriter
	status, n int
}

func (r *recorder) WriteHeader(code int) { r.status = code; r.ResponseWriter.WriteHeader(code) }

func (r *recorder) Write(p []byte) (int, error) {
	n, err := r.ResponseWriter.Write(p)
	r.n += n
	return n, err
}

// TestConditionalRead: a typed call of a function declared ReadOnly is a GET; repeated, it
// sends the ETag it got and the server answers 304 without a body, and the call returns the
// same value; once the answer changes, the new one; other arguments are another read.
func TestConditionalRead(t *testing.T) {
	t.Parallel()
	srv := newBoardServer(t)
	c, err := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	call := func(args BoardArgs, want Board, answers ...string) {
		t.Helper()
		got, err := client.Call(ctx, c, GetBoard, args)
		if err != nil || got != want {
			t.Fatalf("get-board(%+v) = %+v, %v; want %+v", args, got, err, want)
		}
		if a, n := srv.answered(); !slices.Equal(a, answers) || slices.Contains(a, "GET Not Modified") && n != 0 {
			t.Fatalf("get-board(%+v) answered %q (%d bytes), want %q", args, a, n, answers)
		}
	}
	east, west := BoardArgs{ID: 1, Name: "east"}, BoardArgs{ID: 2, Name: "west & north"}
	call(east, Board{1, "traffic of east", 0}, "GET OK")
	call(east, Board{1, "traffic of east", 0}, "GET Not Modified")
	call(west, Board{2, "traffic of west & north", 0}, "GET OK")
	srv.version.Store(1)
	call(east, Board{1, "traffic of east", 1}, "GET OK")
	call(east, Board{1, "traffic of east", 1}, "GET Not Modified")
	call(west, Board{2, "traffic of west & north", 1}, "GET OK")
	call(west, Board{2, "traffic of west & north", 1}, "GET Not Modified")
}

// TestReadCacheBound: WithReadCache(n) keeps the n reads last used (the others are read
// again in full), and WithReadCache(0) sends every call as a POST.
func TestReadCacheBound(t *testing.T) {
	t.Parallel()
	srv := newBoardServer(t)
	for _, tt := range []struct {
		n    int
		want []string
	}{
		{1, []string{"GET OK", "GET OK", "GET OK", "GET Not Modified"}},
		{2, []string{"GET OK", "GET OK", "GET Not Modified", "GET Not Modified"}},
		{0, []string{"POST OK", "POST OK", "POST OK", "POST OK"}},
	} {
		c, err := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()), client.WithReadCache(tt.n))
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []int{1, 2, 1, 1} {
			if b, err := client.Call(t.Context(), c, GetBoard, BoardArgs{ID: id}); err != nil || b.ID != id {
				t.Fatalf("WithReadCache(%d): get-board(%d) = %+v, %v", tt.n, id, b, err)
			}
		}
		if a, _ := srv.answered(); !slices.Equal(a, tt.want) {
			t.Errorf("WithReadCache(%d): answered %q, want %q", tt.n, a, tt.want)
		}
	}
}
