package otel_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/fnapi/fnapi/internal/calllink"
	fnotel "github.com/fnapi/fnapi/otel"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
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
				call := httpCall(&registry.Call{Func: f, Version: v,
					Args: map[string]json.RawMessage{"name": json.RawMessage(`"x"`)}}, header, nil)
				if _, err := h(registry.WithCall(ctx, call), call); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/stream-10-chunks", func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				call := httpCall(&registry.Call{Func: count, Version: v,
					Args: map[string]json.RawMessage{"n": json.RawMessage(`10`)}}, header, nopSink{})
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

// httpCall returns c as the HTTP transport makes it: with header, and in streaming mode when
// sink is not nil.
func httpCall(c *registry.Call, header http.Header, sink stream.Sink) *registry.Call {
	*calllink.Of(c) = calllink.Facts{Transport: "http", Header: header, Sink: sink}
	return c
}
