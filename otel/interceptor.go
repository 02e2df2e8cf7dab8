package otel

import (
	"context"
	"net/http"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
	gotel "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
)

// ScopeName is the instrumentation scope of the spans: the tracer's name.
const ScopeName = "github.com/fnapi/fnapi/otel"

// Option configures the Interceptor.
type Option func(*config)

type config struct {
	tp   trace.TracerProvider
	prop propagation.TextMapPropagator
}

// WithTracerProvider sets where spans go. Default: the global provider
// (go.opentelemetry.io/otel.GetTracerProvider), which records nothing until the application
// sets one.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tp = tp }
}

// WithPropagator sets how the caller's trace context is read from the carrier. Default: W3C
// Trace Context (traceparent, tracestate).
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.prop = p }
}

// Interceptor returns the interceptor that traces each call in a span of its own (see the
// package documentation). It is safe for concurrent use.
func Interceptor(opts ...Option) registry.Interceptor {
	cfg := config{prop: propagation.TraceContext{}}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.tp == nil {
		cfg.tp = gotel.GetTracerProvider()
	}
	tracer := cfg.tp.Tracer(ScopeName)
	return func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (any, error) {
			ctx = cfg.prop.Extract(ctx, carrier{header: c.Header(), meta: c.Meta()})
			ctx, span := tracer.Start(ctx, c.Func.Name, trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(startAttrs(c)...))
			defer span.End()
			if sc := span.SpanContext(); sc.IsValid() {
				c.AddLogFields(zap.Stringer("trace_id", sc.TraceID()), zap.Stringer("span_id", sc.SpanID()))
			}
			var sink *chunkSink
			if c.Sink() != nil && span.IsRecording() {
				c.WrapSink(func(next stream.Sink) stream.Sink {
					sink = &chunkSink{next: next, span: span}
					return sink
				})
			}
			res, err := next(ctx, c)
			if !span.IsRecording() {
				return res, err
			}
			code := "OK"
			if err != nil {
				e := apierr.From(err)
				code = string(e.Code())
				if e.Status() >= http.StatusInternalServerError {
					span.SetStatus(codes.Error, code)
				}
			}
			span.SetAttributes(attribute.String("fnapi.code", code))
			if sink != nil {
				span.SetAttributes(attribute.Int64("fnapi.chunks", sink.n.Load()))
			}
			return res, err
		}
	}
}

// startAttrs returns the attributes known when the call starts.
func startAttrs(c *registry.Call) []attribute.KeyValue {
	a := make([]attribute.KeyValue, 0, 6)
	a = append(a,
		attribute.String("rpc.system", "fnapi"),
		attribute.String("rpc.method", c.Func.Name),
		attribute.String("fnapi.version", c.Version.String()),
		attribute.String("fnapi.transport", c.Transport()),
		attribute.Bool("fnapi.stream", c.Sink() != nil))
	if id := c.ID(); id != "" {
		a = append(a, attribute.String("fnapi.call_id", id))
	}
	return a
}

// carrier reads a call's trace context: its meta entries (a WebSocket call message's), else its
// headers (the request's, or the WebSocket handshake's). It is read-only.
type carrier struct {
	header http.Header
	meta   map[string]string
}

func (c carrier) Get(key string) string {
	for k, v := range c.meta {
		if strings.EqualFold(k, key) {
			return v
		}
	}
	return c.header.Get(key)
}

func (c carrier) Set(string, string) {}

func (c carrier) Keys() []string {
	keys := make([]string, 0, len(c.header)+len(c.meta))
	for k := range c.header {
		keys = append(keys, strings.ToLower(k))
	}
	for k := range c.meta {
		keys = append(keys, strings.ToLower(k))
	}
	return keys
}
