package query

import (
	"context"
	"errors"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/traffic"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of the store spans (the package that made them
// before the components; kept, so that dashboards over it keep working).
const tracerName = "github.com/fnapi/fnapi/examples/dataservice/app"

// The store spans: a query answered by the engine, a batch of records ingested, and old
// records deleted by retention. Their attributes say how much, never what (no expression, no
// record): db.system.name, and records.count for ingest and retention.
const (
	spanQuery  = "records.query"
	spanIngest = "records.ingest"
	spanDelete = "records.delete"
)

// tracedEngine is a traffic.Engine whose queries are spans, children of the call's.
type tracedEngine struct {
	next   traffic.Engine
	tracer trace.Tracer
	system string
}

func (e tracedEngine) Query(ctx context.Context, expr string, now time.Time, period time.Duration) ([]pvql.Result, error) {
	ctx, span := e.tracer.Start(ctx, spanQuery, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system.name", e.system), attribute.Bool("records.stream", false)))
	res, err := e.next.Query(ctx, expr, now, period)
	endSpan(span, err)
	return res, err
}

func (e tracedEngine) Stream(ctx context.Context, expr string, now time.Time, period time.Duration,
	fn func([]pvql.Result, float64) error) error {
	ctx, span := e.tracer.Start(ctx, spanQuery, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system.name", e.system), attribute.Bool("records.stream", true)))
	err := e.next.Stream(ctx, expr, now, period, fn)
	endSpan(span, err)
	return err
}

// tracedLive is a traffic.Live whose answers are spans (records.live true), roots of their
// own: a followed query's shared computation answers for no one call.
type tracedLive struct {
	next   traffic.Live
	tracer trace.Tracer
	system string
}

func (l tracedLive) Answer(ctx context.Context, now time.Time, period time.Duration) ([]pvql.Result, error) {
	ctx, span := l.tracer.Start(ctx, spanQuery, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system.name", l.system), attribute.Bool("records.stream", false),
			attribute.Bool("records.live", true)))
	res, err := l.next.Answer(ctx, now, period)
	endSpan(span, err)
	return res, err
}

func (l tracedLive) Close() { l.next.Close() }

// TracedStore returns st whose writes (ingests, retention's deletions) are spans of tp, their
// db.system.name the engine's name.
func TracedStore(st records.Store, tp trace.TracerProvider, system string) records.Store {
	return tracedStore{Store: st, tracer: tp.Tracer(tracerName), system: system}
}

// tracedStore is a records.Store whose writes are spans.
type tracedStore struct {
	records.Store
	tracer trace.Tracer
	system string
}

func (s tracedStore) Ingest(ctx context.Context, recs []records.Record) error {
	ctx, span := s.tracer.Start(ctx, spanIngest, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system.name", s.system), attribute.Int("records.count", len(recs))))
	err := s.Store.Ingest(ctx, recs)
	endSpan(span, err)
	return err
}

func (s tracedStore) DeleteBefore(ctx context.Context, t int64) (int64, error) {
	ctx, span := s.tracer.Start(ctx, spanDelete, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system.name", s.system)))
	n, err := s.Store.DeleteBefore(ctx, t)
	span.SetAttributes(attribute.Int64("records.count", n))
	endSpan(span, err)
	return n, err
}

// endSpan ends a store span. A failure of the store is recorded and marks the span failed; a
// query the caller got wrong (syntax, too many groups) or cancelled does not: the call's own
// span carries the code the client saw.
func endSpan(span trace.Span, err error) {
	if serverFault(err) && span.IsRecording() {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

func serverFault(err error) bool {
	var se *pvql.SyntaxError
	return err != nil && !errors.As(err, &se) && !errors.Is(err, pvql.ErrTooManyGroups) &&
		!errors.Is(err, context.Canceled)
}
