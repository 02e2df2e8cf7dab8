package traffic

import (
	"context"
	"errors"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

// MaxBatch is the most records one ingest call takes.
const MaxBatch = 100_000

// Engine answers query expressions; *pvql.Engine is one, and a decorator of it may add what the
// service needs around it (trace spans).
type Engine interface {
	// Query answers expr in one pass (see pvql.Engine.Query).
	Query(ctx context.Context, expr string, now time.Time, defaultPeriod time.Duration) ([]pvql.Result, error)
	// Stream answers expr progressively (see pvql.Engine.Stream).
	Stream(ctx context.Context, expr string, now time.Time, defaultPeriod time.Duration,
		fn func(partial []pvql.Result, progress float64) error) error
}

// Service answers the traffic functions.
type Service struct {
	Engine Engine
	Store  records.Store
	// DefaultPeriod returns the period of a statement without SINCE (config default_period).
	DefaultPeriod func() time.Duration
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// Live, when set, starts the incremental answers of a followed expression (pvql.Engine's
	// Live with the store's records.Changes): each interval then reads only the times that
	// changed since the last answer. Default (nil): each interval answers the whole period
	// afresh through Engine. ctx is the call of the follower that starts the shared
	// computation, whose caller what the Live keeps between answers counts against (package
	// app); the Live does not keep ctx, and ends with the computation.
	Live func(ctx context.Context, expr string) (Live, error)
	// MaxFollows is the most followed queries (follow: true) one caller (a user; an anonymous
	// caller by address) may hold open at once. Default (0): DefaultMaxFollows.
	MaxFollows int
	// IngestNeedsAdmin, when set and true, limits ingest to administrators: while alert rules
	// may announce routes to BGP (package app: -bgp and mitigation_zones), the records a user
	// made up would make an administrator's rule announce a blackhole for any address of the
	// zones. Default (nil): ingest needs the user role.
	IngestNeedsAdmin func() bool

	follows follows
	shared  hub // the shared computations of followed queries
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Query is the query function.
func (s *Service) Query(ctx context.Context, in api.QueryArgs, out *stream.Sender[api.Chunk]) error {
	if in.Follow {
		if c := registry.CallFrom(ctx); c == nil || c.Sink() == nil {
			return apierr.New(apierr.InvalidArgument, "name", "follow", "reason", "follow needs streaming mode (stream/query, or a WebSocket stream call)")
		}
		max := s.MaxFollows
		if max <= 0 {
			max = DefaultMaxFollows
		}
		release, err := s.follows.acquire(ctx, max)
		if err != nil {
			return err
		}
		defer release()
	}
	interval := time.Duration(in.Interval * float64(time.Second))
	if c := registry.CallFrom(ctx); c != nil && c.Sink() == nil {
		// Nobody sees partial answers: read the period in one pass rather than in slices.
		res, err := s.Engine.Query(ctx, in.Expr, s.now(), s.DefaultPeriod())
		if err != nil {
			return wire.QueryError(err)
		}
		return out.Send(api.Chunk{Result: apiResults(res), Progress: 1})
	}
	var err error
	if res, ok := s.shared.latest(in.Expr, interval); in.Follow && ok {
		// Others follow this query already: their last answer, at most an interval old, is
		// this caller's first.
		err = out.Send(api.Chunk{Result: apiResults(res), Progress: 1})
	} else {
		err = s.Engine.Stream(ctx, in.Expr, s.now(), s.DefaultPeriod(), func(partial []pvql.Result, progress float64) error {
			return out.Send(api.Chunk{Result: apiResults(partial), Progress: progress})
		})
	}
	if err != nil || !in.Follow {
		return wire.QueryError(err)
	}
	// Each chunk replaces the one before: a partial answer now would show a live dashboard a
	// fraction of the traffic it showed a moment ago. Answer in full, once per interval for
	// all the callers following the same expression at the same interval.
	start := func(expr string) Follower { return s.follower(ctx, expr) }
	err = s.shared.follow(ctx, in.Expr, interval, start, func(res []pvql.Result) error {
		return out.Send(api.Chunk{Result: apiResults(res), Progress: 1})
	})
	return wire.QueryError(err)
}

// lastResult is the query's accumulator: each chunk's result replaces the one before.
func lastResult(_ []api.Result, c api.Chunk) []api.Result { return c.Result }

// Ingest is the ingest function.
func (s *Service) Ingest(ctx context.Context, in api.IngestArgs) (api.IngestResult, error) {
	if s.IngestNeedsAdmin != nil && s.IngestNeedsAdmin() {
		if id := auth.FromContext(ctx); id != nil && id.Role != authapi.RoleAdmin {
			return api.IngestResult{}, apierr.New(apierr.PermissionDenied, "path", "ingest", "role", string(authapi.RoleAdmin))
		}
	}
	if len(in.Records) > MaxBatch {
		return api.IngestResult{}, apierr.New(apierr.InvalidArgument, "name", "records", "reason", "more than 100000 records in one call: send smaller batches")
	}
	recs, err := records.ParseBatch(in.Records, s.now())
	if err != nil {
		var be *records.BatchError
		var re *records.RecordError
		if errors.As(err, &be) && errors.As(be.Err, &re) {
			return api.IngestResult{}, apierr.New(apierr.InvalidArgument, "name", "records", "index", be.Index,
				"field", re.Field, "reason", re.Reason)
		}
		return api.IngestResult{}, err
	}
	if err := s.Store.Ingest(ctx, recs); err != nil {
		return api.IngestResult{}, wire.UnavailableError(err)
	}
	return api.IngestResult{Ingested: len(recs)}, nil
}

// listFields is the list-fields function: the fields of the query language that the call's
// API version knows (each field's since, pvql.FieldsAt); every field for a call made without a
// transport.
func listFields(ctx context.Context, _ decl.None) ([]api.Field, error) {
	if c := registry.CallFrom(ctx); c != nil {
		return apiFields(pvql.FieldsAt(c.Version)), nil
	}
	return apiFields(pvql.Fields()), nil
}

// Register adds query, ingest (since 1.0) and list-fields (since 1.1; since 1.2 it lists the
// exporter key, since 1.4 each key's layers) to reg, each the implementation of its declaration in package api. query takes
// the keys of later versions at every version: a key is an addition that changes no answer of
// an expression an earlier client could write.
func (s *Service) Register(reg *registry.Registry) error {
	if err := registry.ImplementStream(reg, api.Query, s.Query, registry.Accumulate(stream.Func(lastResult)),
		registry.Requires(authapi.RoleReadOnly), registry.ReadOnly()); err != nil {
		return err
	}
	if err := registry.Implement(reg, api.Ingest, s.Ingest, registry.Requires(authapi.RoleUser),
		registry.MaxBody(64<<20)); err != nil { // batches of 100,000 records
		return err
	}
	if err := registry.Implement(reg, api.ListFields, listFields, registry.Requires(authapi.RoleReadOnly), registry.ReadOnly()); err != nil {
		return err
	}
	if err := registry.Implement(reg, api.ListFields12, listFields,
		registry.Requires(authapi.RoleReadOnly), registry.ReadOnly()); err != nil {
		return err
	}
	return registry.Implement(reg, api.ListFields14, listFields,
		registry.Requires(authapi.RoleReadOnly), registry.ReadOnly())
}
