package client_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

// The declarations of the typed tests' API, as a package of declarations would hold them.

type GreetArgs struct {
	Name  string `json:"name"`
	Times int    `json:"times,omitempty" default:"1"`
}

type Tick struct {
	N int `json:"n"`
}

type TicksArgs struct {
	N    int    `json:"n"`              // ticks to send; 0 sends until cancelled
	Fail string `json:"fail,omitempty"` // a code to fail with after the ticks
}

type Hello struct {
	Text string `json:"text"`
}

var NotWelcome = apierr.Declare("NOT-WELCOME", 403, "The caller is not welcome.", apierr.Attr("name", "who"))

var (
	Greet   = decl.Func[GreetArgs, string]("greet", decl.Since("1.1"), decl.Requires(decl.Public), decl.Errors(NotWelcome))
	Ticks   = decl.Stream[TicksArgs, Tick]("ticks", decl.Requires(decl.Public))
	Wait    = decl.Func[decl.None, bool]("wait", decl.Requires(decl.Public))
	Secret  = decl.Func[decl.None, string]("secret") // needs a token
	HelloV1 = decl.Func[decl.None, string]("hello", decl.Until("2.0"), decl.Requires(decl.Public))
	HelloV2 = decl.Func[decl.None, Hello]("hello", decl.Since("2.0"), decl.Requires(decl.Public))
	Future  = decl.Func[decl.None, string]("future", decl.Since("9.0"), decl.Requires(decl.Public))
)

// typedServer implements the declarations over real TLS at /api. started and stopped receive
// the name of a function that waits for its context, when it starts and when it ends.
func typedServer(t testing.TB) (srv *httptest.Server, started, stopped chan string) {
	t.Helper()
	started, stopped = make(chan string, 10), make(chan string, 10)
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	registry.MustImplement(reg, Greet, func(ctx context.Context, in GreetArgs) (string, error) {
		if in.Name == "Mallory" {
			return "", apierr.New(NotWelcome, "name", in.Name)
		}
		return strings.TrimSpace(strings.Repeat("Hello, "+in.Name+"! ", in.Times)), nil
	})
	registry.MustImplementStream(reg, Ticks, func(ctx context.Context, in TicksArgs, s *stream.Sender[Tick]) error {
		if in.N == 0 {
			started <- "ticks"
			defer func() { stopped <- "ticks" }()
		}
		for i := 0; in.N == 0 || i < in.N; i++ {
			if err := s.Send(Tick{N: i}); err != nil {
				return err
			}
		}
		if in.Fail != "" {
			return apierr.New(apierr.Declare(apierr.Code(in.Fail), 400, "The failure the call asked for.",
				apierr.Attr("after", "how many chunks were sent")), "after", in.N)
		}
		return nil
	})
	registry.MustImplement(reg, Wait, func(ctx context.Context, _ decl.None) (bool, error) {
		started <- "wait"
		<-ctx.Done()
		stopped <- "wait"
		return false, ctx.Err()
	})
	registry.MustImplement(reg, Secret, func(context.Context, decl.None) (string, error) { return "s3cr3t", nil })
	registry.MustImplement(reg, HelloV1, func(context.Context, decl.None) (string, error) { return "hello 1", nil })
	registry.MustImplement(reg, HelloV2, func(context.Context, decl.None) (Hello, error) { return Hello{"hello 2"}, nil })
	return serveTLS(t, reg), started, stopped
}

// typedCallers returns an HTTPS client and a WebSocket client of srv, with opts.
func typedCallers(t testing.TB, srv *httptest.Server, opts ...client.Option) map[string]client.Caller {
	c, ws := dial(t, srv, opts...)
	return map[string]client.Caller{"https": c, "ws": ws}
}

func TestTypedCall(t *testing.T) {
	t.Parallel()
	srv, _, _ := typedServer(t)
	ctx := context.Background()
	for name, c := range typedCallers(t, srv) {
		t.Run(name, func(t *testing.T) {
			s, err := client.Call(ctx, c, Greet, GreetArgs{Name: "Ann", Times: 2})
			if err != nil || s != "Hello, Ann! Hello, Ann!" {
				t.Fatalf("greet = %q, %v", s, err)
			}
			hello, err := client.Call(ctx, c, HelloV2, decl.None{})
			if err != nil || hello.Text != "hello 2" {
				t.Fatalf("hello at the latest version = %+v, %v", hello, err)
			}
		})
	}
}

func TestTypedErrors(t *testing.T) {
	t.Parallel()
	srv, _, _ := typedServer(t)
	ctx := context.Background()
	for name, c := range typedCallers(t, srv) {
		t.Run(name, func(t *testing.T) {
			_, err := client.Call(ctx, c, Greet, GreetArgs{Name: "Mallory"})
			var e *apierr.Error
			if !errors.Is(err, NotWelcome) || !errors.As(err, &e) || e.Attr("name") != "Mallory" {
				t.Fatalf("greet Mallory = %v, want the declared NOT-WELCOME with the name", err)
			}
			if _, err := client.Call(ctx, c, Secret, decl.None{}); !errors.Is(err, apierr.New(apierr.AuthenticationNeeded)) {
				t.Fatalf("secret without a token = %v, want API-AUTHENTICATION-NEEDED", err)
			}
			var got []int
			for tick, err := range client.Stream(ctx, c, Ticks, TicksArgs{N: 2, Fail: "RAN-OUT"}) {
				if err != nil {
					if apierr.CodeOf(err) != "RAN-OUT" || !errors.As(err, &e) || e.Attr("after") != float64(2) {
						t.Fatalf("ticks failing = %v, want RAN-OUT after 2", err)
					}
					got = append(got, -1)
					continue
				}
				got = append(got, tick.N)
			}
			if len(got) != 3 || got[0] != 0 || got[1] != 1 || got[2] != -1 {
				t.Fatalf("ticks then an error = %v, want [0 1 -1]", got)
			}
		})
	}
}

func TestTypedStream(t *testing.T) {
	t.Parallel()
	srv, started, stopped := typedServer(t)
	ctx := context.Background()
	for name, c := range typedCallers(t, srv) {
		t.Run(name, func(t *testing.T) {
			var got []int
			for tick, err := range client.Stream(ctx, c, Ticks, TicksArgs{N: 3}) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, tick.N)
			}
			if len(got) != 3 || got[2] != 2 {
				t.Fatalf("ticks = %v, want [0 1 2]", got)
			}
			// Stopping the iteration ends an endless stream on the server.
			n := 0
			for _, err := range client.Stream(ctx, c, Ticks, TicksArgs{}) {
				if err != nil {
					t.Fatal(err)
				}
				if n++; n == 5 {
					break
				}
			}
			<-started
			if s := <-stopped; s != "ticks" {
				t.Fatalf("stopped %q", s)
			}
		})
	}
}

func TestTypedCancel(t *testing.T) {
	t.Parallel()
	srv, started, stopped := typedServer(t)
	for name, c := range typedCallers(t, srv) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				<-started
				cancel()
			}()
			if _, err := client.Call(ctx, c, Wait, decl.None{}); !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled wait = %v, want context.Canceled", err)
			}
			if s := <-stopped; s != "wait" { // the server's function saw its context end
				t.Fatalf("stopped %q", s)
			}
		})
	}
}

func TestTypedVersions(t *testing.T) {
	t.Parallel()
	srv, _, _ := typedServer(t)
	ctx := context.Background()
	for name, c := range typedCallers(t, srv, client.WithDeclaredVersions()) {
		t.Run(name, func(t *testing.T) {
			// hello changed its result at 2.0; the 1.x declaration is still answered as declared.
			s, err := client.Call(ctx, c, HelloV1, decl.None{})
			if err != nil || s != "hello 1" {
				t.Fatalf("hello pinned to 1.0 = %q, %v", s, err)
			}
			h, err := client.Call(ctx, c, HelloV2, decl.None{})
			if err != nil || h.Text != "hello 2" {
				t.Fatalf("hello pinned to 2.0 = %+v, %v", h, err)
			}
			if s, err := client.Call(ctx, c, Greet, GreetArgs{Name: "Bo"}); err != nil || s != "Hello, Bo!" {
				t.Fatalf("greet pinned to 1.1 = %q, %v", s, err)
			}
			var n int
			for _, err := range client.Stream(ctx, c, Ticks, TicksArgs{N: 2}) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if n != 2 {
				t.Fatalf("ticks pinned to 1.0: %d chunks", n)
			}
			if _, err := client.Call(ctx, c, Future, decl.None{}); !errors.Is(err, apierr.New(apierr.UnknownVersion)) {
				t.Fatalf("a version the server does not serve = %v, want UNKNOWN-VERSION", err)
			}
		})
	}
	// Unpinned, the 1.x declaration is called at the latest version, where hello answers an
	// object: the client says the result does not decode.
	for name, c := range typedCallers(t, srv) {
		if _, err := client.Call(ctx, c, HelloV1, decl.None{}); err == nil || !strings.Contains(err.Error(), "decoding the result") {
			t.Fatalf("%s: hello 1.x unpinned at 2.0 = %v, want a decoding error", name, err)
		}
	}
}

func TestTypedVersionsClose(t *testing.T) {
	t.Parallel()
	srv, _, _ := typedServer(t)
	ctx := context.Background()
	ws, err := client.DialWS(ctx, "wss"+strings.TrimPrefix(srv.URL, "https")+"/api/2.0/ws",
		client.WithHTTPClient(srv.Client()), client.WithDeclaredVersions())
	if err != nil {
		t.Fatal(err)
	}
	if s, err := client.Call(ctx, ws, HelloV1, decl.None{}); err != nil || s != "hello 1" { // over a second connection, to 1.0
		t.Fatalf("hello pinned to 1.0 = %q, %v", s, err)
	}
	if h, err := client.Call(ctx, ws, HelloV2, decl.None{}); err != nil || h.Text != "hello 2" { // over the URL's
		t.Fatalf("hello pinned to 2.0 = %+v, %v", h, err)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Call(ctx, ws, HelloV1, decl.None{}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("a pinned call after Close = %v, want an error saying it is closed", err)
	}
}
