package otel

import (
	"context"
	"sync/atomic"

	"github.com/fnapi/fnapi/stream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// chunkSink passes chunks on and records each one sent as a span event, without its content.
type chunkSink struct {
	next stream.Sink
	span trace.Span
	n    atomic.Int64 // chunks sent
}

// Send sends the chunk and, once it is sent, adds the event "chunk" with its index.
func (s *chunkSink) Send(ctx context.Context, chunk any) error {
	if err := s.next.Send(ctx, chunk); err != nil {
		return err
	}
	i := s.n.Add(1) - 1
	s.span.AddEvent("chunk", trace.WithAttributes(attribute.Int64("index", i)))
	return nil
}
