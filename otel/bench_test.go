package otel_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	fnotel "github.com/fnapi/fnapi/otel"
	"github.com/fnapi/fnapi/registry"
	"go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"
)

// BenchmarkInterceptor measures a call of hello through the interceptor chain, without the
// network: the cost of tracing is the difference from "off".
func BenchmarkInterceptor(b *testing.B) {
	reg := api()
	v, _ := reg.Latest()
	f := reg.Lookup(v, "hello")
	recorder := tracetest.NewSpanRecorder() // keeps ended spans in memory, as a batcher would queue them
	cases := []struct {
		name string
		ics  []registry.Interceptor
	}{
		{"off", nil},
		{"noop-provider", []registry.Interceptor{fnotel.Interceptor(fnotel.WithTracerProvider(noop.NewTracerProvider()))}},
		{"sdk-not-sampled", []registry.Interceptor{fnotel.Interceptor(fnotel.WithTracerProvider(
			trace.NewTracerProvider(trace.WithSampler(trace.NeverSample()))))}},
		{"sdk-sampled", []registry.Interceptor{fnotel.Interceptor(fnotel.WithTracerProvider(
			trace.NewTracerProvider(trace.WithSampler(trace.AlwaysSample()), trace.WithSpanProcessor(discard{recorder}))))}},
	}
	header := http.Header{"Traceparent": {traceparent}}
	for _, c := range cases {
		h := registry.Chain(registry.Invoke, c.ics...)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				call := &registry.Call{Func: f, Version: v, Transport: "http", Header: header,
					Args: map[string]json.RawMessage{"name": json.RawMessage(`"x"`)}}
				if _, err := h(registry.WithCall(ctx, call), call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// discard is a span processor that drops ended spans, so that a long run does not grow memory.
type discard struct{ trace.SpanProcessor }

func (discard) OnEnd(trace.ReadOnlySpan) {}
