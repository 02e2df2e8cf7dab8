package otel_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/apitest"
	fnotel "github.com/fnapi/fnapi/otel"
	"github.com/fnapi/fnapi/otel/oteltest"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

// Trace contexts the tests send: a sampled parent, and one the parent chose not to sample.
const (
	traceID      = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentSpan   = "00f067aa0ba902b7"
	traceparent  = "00-" + traceID + "-" + parentSpan + "-01"
	unsampledID  = "0af7651916cd43dd8448eb211c80319c"
	unsampledTP  = "00-" + unsampledID + "-b7ad6b7169203331-00"
	secretArg    = "an argument value that must not be traced"
	secretHeader = "secret:11111111-2222-3333-4444-555555555555"
)

// tracedServer is an API traced to a real OTLP/HTTP receiver.
type tracedServer struct {
	srv  *httptest.Server
	recv *oteltest.Receiver
	logs *observer.ObservedLogs
}

type helloArgs struct {
	Name string `json:"name"`
}

type countArgs struct {
	N int `json:"n"`
}

// newTracedServer serves hello, count (a stream of n chunks) and broken (an internal error),
// with the tracing interceptor exporting synchronously, so that a span is at the receiver once
// its call has answered.
func newTracedServer(t *testing.T) *tracedServer {
	t.Helper()
	recv := oteltest.NewReceiver(t)
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(recv.Endpoint()+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	return serve(t, recv, fnotel.Interceptor(fnotel.WithTracerProvider(tp)))
}

// newUntracedServer serves the same API without the interceptor.
func newUntracedServer(t *testing.T) *tracedServer {
	return serve(t, nil)
}

func serve(t *testing.T, recv *oteltest.Receiver, ics ...registry.Interceptor) *tracedServer {
	reg := api()
	core, logs := observer.New(zap.InfoLevel)
	h, err := fnapi.New(reg, fnapi.WithLogger(zap.New(core)), fnapi.WithInterceptors(ics...))
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.Serve(t, h)
	return &tracedServer{srv: srv, recv: recv, logs: logs}
}

// callLog returns the transport's log line of the one call of function fn with the given
// trace id.
func (s *tracedServer) callLog(t *testing.T, fn, traceID string) observer.LoggedEntry {
	t.Helper()
	for _, e := range s.logs.FilterMessage("call").All() {
		m := e.ContextMap()
		if m["function"] == fn && m["trace_id"] == traceID {
			return e
		}
	}
	t.Fatalf("no log line of %s with trace_id %s in %v", fn, traceID, s.logs.All())
	return observer.LoggedEntry{}
}

// spanOf waits for the span of function fn in the given trace.
func (s *tracedServer) spanOf(t *testing.T, fn, traceID string) *oteltest.Span {
	t.Helper()
	return s.recv.Wait(t, 10e9, func(sp *oteltest.Span) bool {
		return sp.GetName() == fn && hexID(sp.GetTraceId()) == traceID
	})
}

// api is the tests' API.
func api() *registry.Registry {
	reg := registry.New()
	reg.MustRegister("hello", func(in helloArgs) string { return "hello " + in.Name }, registry.Requires(decl.Public))
	reg.MustRegister("count", func(ctx context.Context, in countArgs, s *stream.Sender[int]) error {
		for i := range in.N {
			if err := s.Send(i); err != nil {
				return err
			}
		}
		return nil
	}, registry.Requires(decl.Public))
	reg.MustRegister("broken", func() error {
		return apierr.New(apierr.Internal).Wrap(errors.New("disk on fire"))
	}, registry.Requires(decl.Public))
	return reg
}
