package client_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/client"
)

// BenchmarkCall compares a typed call of a declaration with the dynamic call of the same
// function, on each transport, over TLS on loopback, client and server in this process. The
// dynamic calls decode into the same string; "dynamic-map" passes its arguments as a map, as
// dynamic callers often do; "typed-pinned" calls with WithDeclaredVersions (at /api/1.1/).
func BenchmarkCall(b *testing.B) {
	srv, _, _ := typedServer(b)
	ctx := context.Background()
	args := GreetArgs{Name: "Ann", Times: 2}
	callers := typedCallers(b, srv)
	pinned := typedCallers(b, srv, client.WithDeclaredVersions())
	warmUp(b, callers["https"], callers["ws"], pinned["https"], pinned["ws"])
	for _, transport := range []string{"https", "ws"} {
		c, p := callers[transport], pinned[transport]
		dynamic := c.(interface {
			Call(ctx context.Context, fn string, args any, out any) error
		})
		b.Run(transport+"/typed", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := client.Call(ctx, c, Greet, args); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(transport+"/typed-pinned", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := client.Call(ctx, p, Greet, args); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(transport+"/dynamic", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var s string
				if err := dynamic.Call(ctx, "greet", args, &s); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(transport+"/dynamic-map", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var s string
				if err := dynamic.Call(ctx, "greet", map[string]any{"name": "Ann", "times": 2}, &s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cannedTransport answers every request with the same result message, without a network or a
// server: BenchmarkClientCost measures what the client itself spends on a call.
type cannedTransport struct{}

func (cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Request: r,
		Body: io.NopCloser(strings.NewReader(`{"type":"result","result":"Hello, Ann! Hello, Ann!"}`)),
	}, nil
}

// BenchmarkClientCost is the client's own cost of one HTTPS call, typed and dynamic, with the
// network and the server taken away (a RoundTripper that answers at once): the difference
// between the two is all the typed layer adds.
func BenchmarkClientCost(b *testing.B) {
	ctx := context.Background()
	args := GreetArgs{Name: "Ann", Times: 2}
	newClient := func(opts ...client.Option) *client.Client {
		opts = append(opts, client.WithHTTPClient(&http.Client{Transport: cannedTransport{}}))
		c, err := client.New("https://example.invalid/api", opts...)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	c, pinned := newClient(), newClient(client.WithDeclaredVersions())
	warmUp(b, c, pinned)
	for _, v := range []struct {
		name string
		c    *client.Client
	}{{"typed", c}, {"typed-pinned", pinned}} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if s, err := client.Call(ctx, v.c, Greet, args); err != nil || s == "" {
					b.Fatal(s, err)
				}
			}
		})
	}
	b.Run("dynamic", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var s string
			if err := c.Call(ctx, "greet", args, &s); err != nil || s == "" {
				b.Fatal(s, err)
			}
		}
	})
}

// warmUp calls greet on each caller, typed and dynamic, for a second: the first benchmark
// after the set-up otherwise runs measurably slower (connections, pools, the server's workers,
// the garbage collector's pacing), whichever it is.
func warmUp(b *testing.B, callers ...client.Caller) {
	ctx := context.Background()
	args := GreetArgs{Name: "Ann", Times: 2}
	for start := time.Now(); time.Since(start) < time.Second; {
		for _, c := range callers {
			if _, err := client.Call(ctx, c, Greet, args); err != nil {
				b.Fatal(err)
			}
			var s string
			if err := c.(interface {
				Call(ctx context.Context, fn string, args any, out any) error
			}).Call(ctx, "greet", args, &s); err != nil {
				b.Fatal(err)
			}
		}
	}
}
