package client_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/client"
)

// dynamicCaller is the untyped API that Client and WSConn share.
type dynamicCaller interface {
	Call(ctx context.Context, fn string, args any, out any) error
}

// pairedCalls runs a typed call of greet and the dynamic call of the same function with the
// same arguments in turns (which goes first alternates), timing each, so that both see the
// same machine: on a shared machine, figures from benchmarks run one after the other differ
// by more than the two calls do. It reports the median time of each call, ns/typed and
// ns/dynamic, and their ratio, typed/dynamic.
func pairedCalls(b *testing.B, typed client.Caller, dynamic dynamicCaller) {
	ctx := context.Background()
	args := GreetArgs{Name: "Ann", Times: 2}
	callTyped := func() {
		if s, err := client.Call(ctx, typed, Greet, args); err != nil || s == "" {
			b.Fatal(s, err)
		}
	}
	callDynamic := func() {
		var s string
		if err := dynamic.Call(ctx, "greet", args, &s); err != nil || s == "" {
			b.Fatal(s, err)
		}
	}
	for start := time.Now(); time.Since(start) < 200*time.Millisecond; { // warm up both
		callTyped()
		callDynamic()
	}
	// Each call's own time is kept, and the medians reported: a call that the scheduler
	// preempted (the machine is shared) would weigh on a mean.
	const kept = 1 << 15
	typedTimes, dynamicTimes := make([]time.Duration, 0, kept), make([]time.Duration, 0, kept)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		first, second := callTyped, callDynamic
		if n%2 == 1 {
			first, second = callDynamic, callTyped
		}
		t0 := time.Now()
		first()
		t1 := time.Now()
		second()
		t2 := time.Now()
		if n < kept {
			a, c := t1.Sub(t0), t2.Sub(t1)
			if n%2 == 1 {
				a, c = c, a
			}
			typedTimes, dynamicTimes = append(typedTimes, a), append(dynamicTimes, c)
		}
		n++
	}
	t, d := median(typedTimes), median(dynamicTimes)
	b.ReportMetric(float64(t.Nanoseconds()), "ns/typed")
	b.ReportMetric(float64(d.Nanoseconds()), "ns/dynamic")
	b.ReportMetric(float64(t)/float64(d), "typed/dynamic")
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// BenchmarkCall sets a typed call of a declaration beside the dynamic call of the same
// function with the same arguments, decoded into the same type, over TLS on loopback with the
// server in this process: each op is one call of each. "pinned" calls WithDeclaredVersions
// (at /api/1.1/greet; over a WebSocket, on the connection to /api/1.1/ws); the dynamic call
// goes to the client's own version. B/op and allocs/op are those of the pair.
func BenchmarkCall(b *testing.B) {
	srv, _, _ := typedServer(b)
	callers := typedCallers(b, srv)
	pinned := typedCallers(b, srv, client.WithDeclaredVersions())
	for _, transport := range []string{"https", "ws"} {
		dynamic := callers[transport].(dynamicCaller)
		b.Run(transport, func(b *testing.B) { pairedCalls(b, callers[transport], dynamic) })
		b.Run(transport+"-pinned", func(b *testing.B) { pairedCalls(b, pinned[transport], dynamic) })
	}
}

// cannedTransport answers every request with the same result message, without a network or a
// server.
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

// BenchmarkClientCost is BenchmarkCall over HTTPS with the network and the server taken away
// (a RoundTripper that answers at once): what the client itself spends on a call, so that the
// difference between the two calls is all the typed layer adds.
func BenchmarkClientCost(b *testing.B) {
	newClient := func(opts ...client.Option) *client.Client {
		opts = append(opts, client.WithHTTPClient(&http.Client{Transport: cannedTransport{}}))
		c, err := client.New("https://example.invalid/api", opts...)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	c := newClient()
	b.Run("https", func(b *testing.B) { pairedCalls(b, c, c) })
	b.Run("https-pinned", func(b *testing.B) { pairedCalls(b, newClient(client.WithDeclaredVersions()), c) })
}
