package query

import (
	"context"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/traffic"
	"github.com/fnapi/fnapi/registry"
	"go.opentelemetry.io/otel/trace"
)

// Configuration bounds the queries. A zero field takes its default, so that the zero value is
// DefaultConfiguration's.
type Configuration struct {
	// MaxQueryGroups is the most groups the statements of one query may yield together; more
	// answer TOO-MANY-GROUPS. Default: 1,000,000 (DefaultMaxQueryGroups).
	MaxQueryGroups int
	// QueryGroupBudget is the most groups all queries running at once may hold together; a
	// query past it answers RATE-LIMITED. Default: 2,000,000 (DefaultQueryGroupBudget), never
	// below MaxQueryGroups.
	QueryGroupBudget int
	// QueryMemory is DuckDB's memory_limit in bytes (the embedded store only). Default: 1 GiB
	// (DefaultQueryMemory).
	QueryMemory int64
	// QueryThreads is how many threads DuckDB uses (the embedded store only). Default (0):
	// GOMAXPROCS.
	QueryThreads int
	// MaxFollows is the most followed queries one caller may hold open at once; one more
	// answers LIMIT-REACHED. Default: 64 (traffic.DefaultMaxFollows).
	MaxFollows int
	// StandingGroupBudget is the most groups standing queries (alert rules, followed queries)
	// keep between their answers, all together, out of QueryGroupBudget. Default (0): half of
	// QueryGroupBudget, 1,000,000 (DefaultStandingGroupBudget).
	StandingGroupBudget int
	// StandingGroupsPerUser is the most groups the standing queries of one user keep between
	// their answers, and the most groups one alert rule's query may yield. Default (0): a
	// quarter of StandingGroupBudget, 250,000 (DefaultStandingGroupsPerUser).
	StandingGroupsPerUser int
}

// DefaultConfiguration returns the documented defaults. The standing budgets stay 0, which
// derives them from QueryGroupBudget, so that a smaller budget gives smaller shares.
func DefaultConfiguration() Configuration {
	return Configuration{MaxQueryGroups: DefaultMaxQueryGroups, QueryGroupBudget: DefaultQueryGroupBudget,
		QueryMemory: DefaultQueryMemory, MaxFollows: traffic.DefaultMaxFollows}
}

// Dependencies are what the query component uses.
type Dependencies struct {
	// Records is the store the engine reads. When it is a records.Limiter (DuckDB), New sets its
	// memory and threads; when it is a records.ChangeReporter, followed queries and alert rules
	// answer from its changes.
	Records records.Store
	// Store is the store of the ingest function: Records with the context of each record
	// (package inlet) and traced.
	Store records.Store
	// DefaultPeriod is the period of a query without SINCE (the default_period configuration
	// key).
	DefaultPeriod func() time.Duration
	// TracerProvider, when set, traces the engine's queries as children of the calls' spans;
	// System names the engine in them (db.system.name).
	TracerProvider trace.TracerProvider
	System         string
	// Queue answers the layer queue (pvql.WithQueue) on a node with -queue. Default: nil, a
	// statement FROM queue fails (pvql.ErrNoQueue).
	Queue func(context.Context) (pvql.QueueState, error)
	// IngestNeedsAdmin limits ingest to administrators while it reports true
	// (traffic.Service.IngestNeedsAdmin). Default: nil, never.
	IngestNeedsAdmin func() bool
}

// Component is the query component: the query language's engine over the records, the
// budgets of standing queries, and the query, follow and ingest functions (package traffic).
type Component struct {
	deps     Dependencies
	cfg      Configuration
	engine   *pvql.Engine
	standing *standingBudgets
}

// New returns the query component over deps, bounded as cfg says; it sets the memory and
// threads of an engine in the process.
func New(ctx context.Context, deps Dependencies, cfg Configuration) (*Component, error) {
	e, err := newEngine(ctx, deps.Records, cfg)
	if err != nil {
		return nil, err
	}
	if deps.Queue != nil {
		e = e.With(pvql.WithQueue(deps.Queue))
	}
	return &Component{deps: deps, cfg: cfg, engine: e, standing: newStanding(e, cfg)}, nil
}

// Start starts the component: it has no background work.
func (c *Component) Start() error { return nil }

// Stop stops the component: the engine holds nothing to release (the store is the
// assembly's).
func (c *Component) Stop() error { return nil }

// Rules returns the engine that answers the alert rules of owner, within their share of the
// standing budget.
func (c *Component) Rules(owner string) *pvql.Engine { return c.standing.of(owner).rules }

// Register adds the functions of package traffic (query, follow, ingest, list-fields) to reg.
func (c *Component) Register(reg *registry.Registry) error {
	maxFollows := c.cfg.MaxFollows
	if maxFollows <= 0 {
		maxFollows = traffic.DefaultMaxFollows
	}
	svc := &traffic.Service{Engine: c.engine, Store: c.deps.Store, DefaultPeriod: c.deps.DefaultPeriod, MaxFollows: maxFollows,
		IngestNeedsAdmin: c.deps.IngestNeedsAdmin}
	if cr, ok := c.deps.Records.(records.ChangeReporter); ok {
		// The store reports all the records' changes (DuckDB: only this process writes its
		// file), so followed queries answer from them. Elsewhere (ClickHouse, which other
		// nodes may write) a followed query answers its whole period each interval.
		changes := cr.Changes()
		svc.Live = func(ctx context.Context, expr string) (traffic.Live, error) {
			l, err := c.standing.of(userOf(ctx)).follows.Live(expr, changes)
			if err != nil {
				return nil, err
			}
			return l, nil
		}
	}
	if tp := c.deps.TracerProvider; tp != nil {
		system := c.deps.System
		svc.Engine = tracedEngine{next: svc.Engine, tracer: tp.Tracer(tracerName), system: system}
		if live := svc.Live; live != nil {
			svc.Live = func(ctx context.Context, expr string) (traffic.Live, error) {
				l, err := live(ctx, expr)
				if err != nil {
					return nil, err
				}
				return tracedLive{next: l, tracer: tp.Tracer(tracerName), system: system}, nil
			}
		}
	}
	return svc.Register(reg)
}
