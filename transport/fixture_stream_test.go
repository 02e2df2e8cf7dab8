package transport_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
	"github.com/fnapi/fnapi/transport"
)

// streamAPI is the API the streaming and WebSocket tests call. Its functions report to the test
// through channels: started receives a call's "tag" when wait starts, stopped when it sees
// ctx.Done().
type streamAPI struct {
	started chan string
	stopped chan string
}

type countArgs struct {
	N    int    `json:"n"`
	Size int    `json:"size,omitempty"`
	Fail string `json:"fail,omitempty"` // when set, the stream fails with this code after n chunks
}

func (a *streamAPI) count(ctx context.Context, in countArgs, s *stream.Sender[any]) error {
	var pad string
	if in.Size > 0 {
		pad = strings.Repeat("x", in.Size)
	}
	for i := range in.N {
		var c any = i
		if pad != "" {
			c = pad
		}
		if err := s.Send(c); err != nil {
			return err
		}
	}
	if in.Fail != "" {
		return apierr.New(apierr.Declare(apierr.Code(in.Fail), 400, "The failure the call asked for.",
			apierr.Attr("after", "how many chunks were sent")), "after", in.N)
	}
	return nil
}

type waitArgs struct {
	Tag string `json:"tag"`
}

// wait blocks until its context is done, then reports the tag on stopped.
func (a *streamAPI) wait(ctx context.Context, in waitArgs) (string, error) {
	a.started <- in.Tag
	<-ctx.Done()
	a.stopped <- in.Tag
	return "", ctx.Err()
}

// forever sends its tag as a chunk, then runs until its context is done, reporting on started
// and stopped as wait does: a follow stream with nothing new.
func (a *streamAPI) forever(ctx context.Context, in waitArgs, s *stream.Sender[string]) error {
	if err := s.Send(in.Tag); err != nil {
		return err
	}
	a.started <- in.Tag
	<-ctx.Done()
	a.stopped <- in.Tag
	return nil
}

// testAuth accepts the API key "secret:k" and the session "session:s"; whoami answers which
// one authenticated the call.
func testAuth(next registry.Handler) registry.Handler {
	return func(ctx context.Context, c *registry.Call) (any, error) {
		switch {
		case c.Credentials.Key == "secret:k":
			c.Identity = "key"
		case c.Credentials.Session == "session:s":
			c.Identity = "session"
		}
		return next(ctx, c)
	}
}

// newStreamServer serves streamAPI over real TLS under /api.
func newStreamServer(t testing.TB, cfg transport.Config) (*httptest.Server, *streamAPI) {
	t.Helper()
	api := &streamAPI{started: make(chan string, 100), stopped: make(chan string, 100)}
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	pub := registry.Requires(decl.Public)
	reg.MustRegister("count", api.count, pub)
	reg.MustRegister("wait", api.wait, pub)
	reg.MustRegister("forever", api.forever, pub)
	reg.MustRegister("add", func(a, b int) int { return a + b }, registry.Args("a", "b"), pub)
	reg.MustRegister("whoami", func(ctx context.Context) any { return registry.CallFrom(ctx).Identity })
	cfg.Interceptors = append(cfg.Interceptors, testAuth)
	h, err := transport.New(reg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", h))
	srv := httptest.NewUnstartedServer(mux)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, api
}
