package traffic

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

// TooManyGroups is the code of a query whose grouping yields more rows than the engine allows.
const TooManyGroups apierr.Code = "TOO-MANY-GROUPS"

// MaxBatch is the most records one ingest call takes.
const MaxBatch = 100_000

// Service answers the traffic functions.
type Service struct {
	Engine *pvql.Engine
	Store  records.Store
	// DefaultPeriod returns the period of a statement without SINCE (config default_period).
	DefaultPeriod func() time.Duration
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// QueryArgs are the arguments of query.
type QueryArgs struct {
	Expr     string  `json:"expr" jsonschema:"description=An expression of the query language: one or more statements separated by ';'"`
	Follow   bool    `json:"follow,omitempty" jsonschema:"description=Streaming mode only: answer again every interval seconds until cancelled"`
	Interval float64 `json:"interval" default:"5" jsonschema:"minimum=1,maximum=3600,description=Seconds between answers when following"`
}

// Chunk is one chunk of a streamed query.
type Chunk struct {
	// Result replaces the result of the previous chunk.
	Result []pvql.Result `json:"result"`
	// Progress is the fraction of the answer done, 0..1; 1 on every chunk of a followed query
	// once its first answer is complete.
	Progress float64 `json:"progress"`
}

// Query is the query function.
func (s *Service) Query(ctx context.Context, in QueryArgs, out *stream.Sender[Chunk]) error {
	if in.Follow {
		if c := registry.CallFrom(ctx); c == nil || c.Sink == nil {
			return apierr.New(apierr.InvalidArgument, "name", "follow", "reason", "follow needs streaming mode (stream/query, or a WebSocket stream call)")
		}
	}
	interval := time.Duration(in.Interval * float64(time.Second))
	if c := registry.CallFrom(ctx); c != nil && c.Sink == nil {
		// Nobody sees partial answers: read the period in one pass rather than in slices.
		res, err := s.Engine.Query(ctx, in.Expr, s.now(), s.DefaultPeriod())
		if err != nil {
			return queryError(err)
		}
		return out.Send(Chunk{Result: res, Progress: 1})
	}
	err := s.Engine.Stream(ctx, in.Expr, s.now(), s.DefaultPeriod(), func(partial []pvql.Result, progress float64) error {
		return out.Send(Chunk{Result: partial, Progress: progress})
	})
	if err != nil || !in.Follow {
		return queryError(err)
	}
	for {
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		// Each chunk replaces the one before: a partial answer now would show a live
		// dashboard a fraction of the traffic it showed a moment ago. Answer in full.
		res, err := s.Engine.Query(ctx, in.Expr, s.now(), s.DefaultPeriod())
		if err != nil {
			return queryError(err)
		}
		if err := out.Send(Chunk{Result: res, Progress: 1}); err != nil {
			return err
		}
	}
}

func queryError(err error) error {
	var se *pvql.SyntaxError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return apierr.New(manage.QuerySyntax, "position", se.Position, "expected", se.Expected, "message", se.Message)
	case errors.Is(err, pvql.ErrTooManyGroups):
		return apierr.New(TooManyGroups, "reason", "the grouping yields too many rows: add TOP, a narrower WHERE or fewer keys")
	}
	return err
}

// lastResult is the query's accumulator: each chunk's result replaces the one before.
func lastResult(_ []pvql.Result, c Chunk) []pvql.Result { return c.Result }

// IngestArgs are the arguments of ingest.
type IngestArgs struct {
	Records []json.RawMessage `json:"records" jsonschema:"description=Traffic records; all are stored or none"`
}

// IngestResult is the answer of ingest.
type IngestResult struct {
	Ingested int `json:"ingested"`
}

// Ingest is the ingest function.
func (s *Service) Ingest(ctx context.Context, in IngestArgs) (IngestResult, error) {
	if len(in.Records) > MaxBatch {
		return IngestResult{}, apierr.New(apierr.InvalidArgument, "name", "records", "reason", "more than 100000 records in one call: send smaller batches")
	}
	recs, err := records.ParseBatch(in.Records, s.now())
	if err != nil {
		var be *records.BatchError
		var re *records.RecordError
		if errors.As(err, &be) && errors.As(be.Err, &re) {
			return IngestResult{}, apierr.New(apierr.InvalidArgument, "name", "records", "index", be.Index,
				"field", re.Field, "reason", re.Reason)
		}
		return IngestResult{}, err
	}
	if err := s.Store.Ingest(ctx, recs); err != nil {
		return IngestResult{}, err
	}
	return IngestResult{Ingested: len(recs)}, nil
}

// ListFields is the list-fields function.
func ListFields() []pvql.Field { return pvql.Fields() }

// Register adds query, ingest (since 1.0) and list-fields (since 1.1) to reg.
func (s *Service) Register(reg *registry.Registry) error {
	if err := reg.Register("query", s.Query,
		registry.Describe("Answers an expression of the query language over the collected traffic records, one result object per statement."),
		registry.Accumulate(stream.Func(lastResult)), registry.Errors(manage.QuerySyntax, TooManyGroups)); err != nil {
		return err
	}
	if err := reg.Register("ingest", s.Ingest, registry.MaxBody(64<<20), // batches of 100,000 records
		registry.Describe("Stores a batch of traffic records, all or nothing.")); err != nil {
		return err
	}
	return reg.Register("list-fields", ListFields, registry.Since("1.1"),
		registry.Describe("Lists the metrics, keys and layers of the query language."))
}
