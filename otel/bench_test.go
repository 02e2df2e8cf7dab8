package otel_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	fnotel "github.com/fnapi/fnapi/otel"
	"github.com/fnapi/fnapi/registry"
	"go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// BenchmarkInterceptor measures a call of hello through the interceptor chain, without the
// network: the cost of tracing is the difference from "off".
func BenchmarkInterceptor(b *testing.B) {
	reg := api()
	v, _ := reg.Latest()
	f := reg.Lookup(v, "hello")
	cases := []struct {
		name string
		ics  []registry.Interceptor
	}{
		{"off", nil},
		{"noop-provider", []registry.Interceptor{fnotel.Interceptor(fnotel.WithTracerProvider(noop.NewTracerProvider()))}},
		{"sdk-not-sampled", []registry.Interceptor{fnotel.Interceptor(fnotel.WithTracerProvider(
			trace.NewTracerProvider(trace.WithSampler(trace.NeverSample()))))}},
		{"sdk-sampled", []registry.Interceptor{fnotel.Interceptor(fnotel.WithTracerProvider(
			trace.NewTracerProvider(trace.WithSampler(trace.AlwaysSample()), trace.WithSpanProcessor(discard{}))))}},
	}
	header := http.Header{"Traceparent": {traceparent}}
	count := reg.Lookup(v, "count")
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
		b.Run(c.name+"/stream-10-chunks", func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				call := &registry.Call{Func: count, Version: v, Transport: "http", Header: header, Sink: nopSink{},
					Args: map[string]json.RawMessage{"n": json.RawMessage(`10`)}}
				if _, err := h(registry.WithCall(ctx, call), call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// nopSink drops the chunks of a stream.
type nopSink struct{}

func (nopSink) Send(context.Context, any) error { return nil }

// discard is a span processor that drops the spans once ended: the cost measured is making
// them, not exporting them (a batcher exports in a goroutine of its own).
type discard struct{}

func (discard) OnStart(context.Context, trace.ReadWriteSpan) {}
func (discard) OnEnd(trace.ReadOnlySpan)                     {}
func (discard) Shutdown(context.Context) error               { return nil }
func (discard) ForceFlush(context.Context) error             { return nil }
