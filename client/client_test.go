package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/apitest"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

type countArgs struct {
	N    int    `json:"n"`
	Fail string `json:"fail,omitempty"`
}

// testServer serves a small API over real TLS at /api. started and stopped receive the tag of
// each wait call when it starts and when its context is done.
func testServer(t testing.TB) (srv *httptest.Server, started, stopped chan string) {
	t.Helper()
	started, stopped = make(chan string, 100), make(chan string, 100)
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	pub := registry.Requires(decl.Public)
	reg.MustRegister("add", func(a, b int) int { return a + b }, registry.Args("a", "b"), pub)
	reg.MustRegister("count", func(ctx context.Context, in countArgs, s *stream.Sender[int]) error {
		for i := range in.N {
			if err := s.Send(i); err != nil {
				return err
			}
		}
		if in.Fail != "" {
			return apierr.New(apierr.Declare(apierr.Code(in.Fail), 400, "The failure the call asked for.",
				apierr.Attr("after", "how many chunks were sent")), "after", in.N)
		}
		return nil
	}, pub)
	reg.MustRegister("wait", func(ctx context.Context, tag string) error {
		started <- tag
		<-ctx.Done()
		stopped <- tag
		return ctx.Err()
	}, registry.Args("tag"), pub)
	reg.MustRegister("whoami", func(ctx context.Context) any { return registry.CallFrom(ctx).Identity })
	auth := func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (any, error) {
			if c.Credentials.Key == "secret:k" || c.Credentials.Session == "session:s" {
				c.Identity = "someone"
			}
			return next(ctx, c)
		}
	}
	return serveTLS(t, reg, fnapi.WithInterceptors(auth)), started, stopped
}

// serveTLS serves reg's API over real TLS at /api until the test ends.
func serveTLS(t testing.TB, reg *registry.Registry, opts ...fnapi.Option) *httptest.Server {
	t.Helper()
	h, err := fnapi.New(reg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.Serve(t, h)
	return srv
}

// caller is what Client and WSConn have in common.
type caller interface {
	Call(ctx context.Context, fn string, args any, out any) error
	Stream(ctx context.Context, fn string, args any) func(func(json.RawMessage, error) bool)
}

type wsCaller struct{ *client.WSConn }

func (w wsCaller) Stream(ctx context.Context, fn string, args any) func(func(json.RawMessage, error) bool) {
	return w.WSConn.Stream(ctx, fn, args)
}

type httpCaller struct{ *client.Client }

func (h httpCaller) Stream(ctx context.Context, fn string, args any) func(func(json.RawMessage, error) bool) {
	return h.Client.Stream(ctx, fn, args)
}

// callers returns an HTTPS client and a WebSocket client of srv, with opts.
func callers(t *testing.T, srv *httptest.Server, opts ...client.Option) map[string]caller {
	c, ws := dial(t, srv, opts...)
	return map[string]caller{"https": httpCaller{c}, "ws": wsCaller{ws}}
}

// dial returns an HTTPS client of srv's API and a WebSocket connection to it, closed when the
// test ends.
func dial(t testing.TB, srv *httptest.Server, opts ...client.Option) (*client.Client, *client.WSConn) {
	t.Helper()
	opts = append([]client.Option{client.WithHTTPClient(srv.Client())}, opts...)
	c, err := client.New(srv.URL+"/api", opts...)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := client.DialWS(context.Background(), "wss"+strings.TrimPrefix(srv.URL, "https")+"/api/ws", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return c, ws
}

func TestCall(t *testing.T) {
	t.Parallel()
	srv, _, _ := testServer(t)
	for name, c := range callers(t, srv) {
		t.Run(name, func(t *testing.T) {
			var sum int
			if err := c.Call(context.Background(), "add", map[string]int{"a": 2, "b": 3}, &sum); err != nil || sum != 5 {
				t.Fatalf("add = %d, %v", sum, err)
			}
			err := c.Call(context.Background(), "add", struct {
				A int `json:"a"`
			}{1}, nil)
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code() != apierr.TooFewArguments.Code() ||
				!reflect.DeepEqual(e.Attr("names"), []any{"a", "b"}) {
				t.Fatalf("add(a) = %v, want TOO-FEW-ARGUMENTS with names", err)
			}
			if err := c.Call(context.Background(), "whoami", nil, nil); !errors.Is(err, apierr.New(apierr.AuthenticationNeeded)) {
				t.Fatalf("anonymous whoami = %v", err)
			}
			if err := c.Call(context.Background(), "add", []int{1}, nil); err == nil {
				t.Fatal("arguments that are not an object were sent")
			}
		})
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	srv, _, _ := testServer(t)
	for _, opt := range []client.Option{client.WithAPIKey("secret:k"), client.WithSession("session:s")} {
		for name, c := range callers(t, srv, opt) {
			var who string
			if err := c.Call(context.Background(), "whoami", nil, &who); err != nil || who != "someone" {
				t.Fatalf("%s: whoami = %q, %v", name, who, err)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	srv, _, _ := testServer(t)
	c, _ := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()), client.WithVersion("1.0"))
	var v string
	if err := c.Call(context.Background(), "get-api-version", nil, &v); err != nil || v != "1.0" {
		t.Fatalf("get-api-version = %q, %v", v, err)
	}
	c, _ = client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()), client.WithVersion("9.9"))
	if err := c.Call(context.Background(), "get-api-version", nil, &v); !errors.Is(err, apierr.New(apierr.UnknownVersion)) {
		t.Fatalf("at 9.9: %v", err)
	}
}

func collect(seq func(func(json.RawMessage, error) bool)) (chunks []string, err error) {
	for c, e := range seq {
		if e != nil {
			return chunks, e
		}
		chunks = append(chunks, string(c))
	}
	return chunks, nil
}

func TestStream(t *testing.T) {
	t.Parallel()
	srv, _, _ := testServer(t)
	for name, c := range callers(t, srv) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			got, err := collect(c.Stream(ctx, "count", countArgs{N: 3}))
			if err != nil || !reflect.DeepEqual(got, []string{"0", "1", "2"}) {
				t.Fatalf("count = %v, %v", got, err)
			}
			got, err = collect(c.Stream(ctx, "count", countArgs{N: 2, Fail: "BROKEN"}))
			var e *apierr.Error
			if !reflect.DeepEqual(got, []string{"0", "1"}) || !errors.As(err, &e) || e.Code() != "BROKEN" || e.Attr("after") != 2.0 {
				t.Fatalf("failing count = %v, %v", got, err)
			}
			got, err = collect(c.Stream(ctx, "add", map[string]int{"a": 1, "b": 2}))
			if err != nil || !reflect.DeepEqual(got, []string{"3"}) {
				t.Fatalf("add as a stream = %v, %v", got, err)
			}
			n := 0
			for range c.Stream(ctx, "count", countArgs{N: 1 << 30}) {
				if n++; n == 5 {
					break // ends the call
				}
			}
			var sum int // the connection still serves
			if err := c.Call(ctx, "add", map[string]int{"a": 1, "b": 1}, &sum); err != nil || sum != 2 {
				t.Fatalf("after a broken-off stream: %d, %v", sum, err)
			}
		})
	}
}

// TestCancel cancels calls through their context: the function sees ctx.Done().
func TestCancel(t *testing.T) {
	t.Parallel()
	srv, started, stopped := testServer(t)
	for name, c := range callers(t, srv) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() { errc <- c.Call(ctx, "wait", map[string]string{"tag": name}, nil) }()
			go func() {
				_, err := collect(c.Stream(ctx, "wait", map[string]string{"tag": name + "-stream"}))
				errc <- err
			}()
			<-started // both calls run on the server
			<-started
			cancel()
			for range 2 {
				if err := <-errc; !errors.Is(err, context.Canceled) {
					t.Fatalf("cancelled call returned %v", err)
				}
			}
			got := map[string]bool{<-stopped: true, <-stopped: true}
			if !got[name] || !got[name+"-stream"] {
				t.Fatalf("stopped %v", got)
			}
		})
	}
}

// TestWSConcurrentCalls makes many calls at once on one connection.
func TestWSConcurrentCalls(t *testing.T) {
	t.Parallel()
	srv, _, _ := testServer(t)
	ws := callers(t, srv)["ws"]
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Go(func() {
			var sum int
			if err := ws.Call(context.Background(), "add", map[string]int{"a": i, "b": 1}, &sum); err != nil || sum != i+1 {
				errs <- fmt.Errorf("add(%d, 1) = %d, %v", i, sum, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestWSClosed(t *testing.T) {
	t.Parallel()
	srv, _, _ := testServer(t)
	ws, err := client.DialWS(context.Background(), "wss"+strings.TrimPrefix(srv.URL, "https")+"/api/ws", client.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ws.Call(context.Background(), "add", map[string]int{"a": 1, "b": 1}, nil); err == nil {
		t.Fatal("call on a closed connection succeeded")
	}
}

// TestWSCancelledCallKeepsConnection: a call whose context is done (here before it starts)
// ends with the context's error, and the connection it shares with other calls stays open.
func TestWSCancelledCallKeepsConnection(t *testing.T) {
	t.Parallel()
	srv, _, _ := testServer(t)
	ws := callers(t, srv)["ws"]
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 50 {
		if err := ws.Call(cancelled, "add", map[string]int{"a": 1, "b": 1}, nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("call %d with a cancelled context returned %v", i, err)
		}
		for _, err := range ws.Stream(cancelled, "count", map[string]int{"n": 1}) {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("stream %d with a cancelled context yielded %v", i, err)
			}
		}
	}
	var sum int
	if err := ws.Call(context.Background(), "add", map[string]int{"a": 2, "b": 3}, &sum); err != nil || sum != 5 {
		t.Fatalf("the connection did not survive cancelled calls: add = %d, %v", sum, err)
	}
}

// TestCallAnswers checks how Call reads each kind of answer to a call, as a server would send it:
// a result into what out points to (null too), an error message as an *apierr.Error, and what
// is not a result as an error, leaving nothing half said.
func TestCallAnswers(t *testing.T) {
	t.Parallel()
	var body string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	call := func(answer string, out any) error {
		body = answer
		return c.Call(context.Background(), "f", nil, out)
	}
	var got struct {
		A []int `json:"a"`
	}
	if err := call(`{"type":"result","result":{"a":[1,2]},"id":""}`, &got); err != nil || !reflect.DeepEqual(got.A, []int{1, 2}) {
		t.Errorf("result = %+v, %v", got, err)
	}
	list := []int{1}
	if err := call(`{"type":"result","result":null}`, &list); err != nil || list != nil {
		t.Errorf("a null result into a slice = %v, %v; want nil", list, err)
	}
	var anything any = "before"
	if err := call(`{"type":"result","result":[1,"x"]}`, &anything); err != nil || !reflect.DeepEqual(anything, []any{1.0, "x"}) {
		t.Errorf("result into an any = %#v, %v", anything, err)
	}
	var e *apierr.Error
	if err := call(`{"type":"error","error":"NOT-FOUND","name":"f"}`, &got); !errors.As(err, &e) || e.Code() != "NOT-FOUND" || e.Attr("name") != "f" {
		t.Errorf("error message = %v", err)
	}
	var n int
	for answer, want := range map[string]string{
		`{"type":"result","result":"text"}`: "decoding the result",
		`{"type":"chunk","chunk":1}`:        `unexpected "chunk" message`,
		`{"type":"result",`:                 "status 200: client: the server sent a message that is not JSON",
		`{"type":"result","result":1} x`:    "not JSON",
		`{"type":1}`:                        "not JSON",
	} {
		if err := call(answer, &n); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", answer, err, want)
		}
	}
	if err := call(`{"type":"result","result":1}`, n); err == nil {
		t.Error("a result stored into a value that is not a pointer")
	}
	if err := call(`{"type":"result","result":1}`, nil); err != nil {
		t.Errorf("a result dropped: %v", err)
	}
}
