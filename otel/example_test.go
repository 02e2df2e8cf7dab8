package otel_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	fnotel "github.com/fnapi/fnapi/otel"
	"github.com/fnapi/fnapi/registry"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A call that carries a traceparent header is a span of the caller's trace.
func ExampleInterceptor() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	reg := registry.New()
	reg.MustRegister("add", func(a, b int) int { return a + b }, registry.Args("a", "b"), registry.Requires(decl.Public))
	h, err := fnapi.New(reg, fnapi.WithInterceptors(fnotel.Interceptor(fnotel.WithTracerProvider(tp))))
	if err != nil {
		panic(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/add?a=1&b=2", nil)
	req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	h.ServeHTTP(httptest.NewRecorder(), req)

	for _, s := range spans.GetSpans() {
		fmt.Println(s.Name, s.SpanKind, s.SpanContext.TraceID(), s.Parent.SpanID())
		for _, a := range s.Attributes {
			fmt.Printf("  %s=%s\n", a.Key, a.Value.String())
		}
	}
	// Output:
	// add server 4bf92f3577b34da6a3ce929d0e0e4736 00f067aa0ba902b7
	//   rpc.system=fnapi
	//   rpc.method=add
	//   fnapi.version=1.0
	//   fnapi.transport=http
	//   fnapi.stream=false
	//   fnapi.code=OK
}
