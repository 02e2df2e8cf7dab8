package alerts

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/cluster"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// Configuration is the alerts' part of the service's configuration: where notifications may
// go. The zero value sends webhooks to public addresses only and no e-mail.
type Configuration struct {
	// WebhookAllow lists the prefixes webhooks may reach besides public addresses
	// (-webhook-allow). Default: none.
	WebhookAllow []netip.Prefix
	// WebhookRoots verifies webhook receivers' certificates. Default: nil, the system's roots.
	WebhookRoots *x509.CertPool
	// Listen lists the service's own listening addresses (-addr, -metrics): webhooks never
	// reach them, whatever WebhookAllow holds. Default: none.
	Listen []netip.AddrPort
	// SMTP is where e-mail notifications go (-smtp). Default: nil, none.
	SMTP *SMTP
	// Backoff is the wait after a first failed notification. Default: 0, which is 5 s.
	Backoff time.Duration
	// MaxTransitions bounds the transitions one evaluation of a rule makes,
	// MaxHourlyTransitions those of one owner's rules in an hour, MaxWaiting the
	// notifications of one owner's rules waiting to be sent. Default: 0, which is
	// DefaultMaxTransitions (100), DefaultMaxHourlyTransitions (10,000) and
	// DefaultMaxWaiting (1,000).
	MaxTransitions, MaxHourlyTransitions, MaxWaiting int
	// MaxMitigations bounds the routes rules announce at once. Default: 0, which is
	// DefaultMaxMitigations (100).
	MaxMitigations int
	// MitigationHold is the least time a route stays announced; MitigationDelay how long a
	// route withdrawn waits before it is announced again. Default: 0, which is
	// DefaultMitigationHold (5 min) and DefaultMitigationDelay (1 min).
	MitigationHold, MitigationDelay time.Duration
}

// DefaultConfiguration returns the defaults: webhooks to public addresses, no e-mail.
func DefaultConfiguration() Configuration { return Configuration{} }

// Dependencies are what the alerts component uses.
type Dependencies struct {
	// State keeps the alert rules (a *statedb.SQLite or *statedb.Postgres).
	State state.Store
	// Records is the records store: when it reports its changes (records.ChangeReporter),
	// rules answer from them.
	Records records.Store
	// Rules returns the engine that answers the rules of owner (the query component's, within
	// the owner's share of the standing budget).
	Rules func(owner string) *pvql.Engine
	// DefaultPeriod is the period of a rule's query without SINCE.
	DefaultPeriod func() time.Duration
	// Logger receives the alerts' log. Default: none.
	Logger *zap.Logger
	// Shared is the PostgreSQL URL the nodes of a service share: with it the rules are
	// evaluated on one node at a time, under a lease.
	Shared string
	// Announcer announces the routes of rules' bgp channels: the BGP speaker (-bgp).
	// Default: nil, BGP off: a bgp channel is refused and nothing is announced.
	Announcer Announcer
	// Mitigation returns the configuration keys mitigation_zones and blackhole_nexthop as
	// they are now. Default: none, nothing is announced.
	Mitigation func() MitigationSettings
	// Zones returns the operator's zones as they are now (the inlet's). Default: none.
	Zones func() *netctx.Zones
}

// leaseKey is the advisory lock of the alerts' lease.
const leaseKey = 0x66_6e_61_70_69_03

// Component is the alerts component: the Service over the state store's alert tables, and
// its evaluation and notifications, run by Start until Stop.
type Component struct {
	service    *Service
	log        *zap.Logger
	shared     string
	evaluating atomic.Bool // this node evaluates the rules now

	stop  context.CancelFunc
	wg    sync.WaitGroup
	lease *cluster.Lease
}

// NewComponent opens the alert tables in the state store and returns the component that
// answers the rules with deps' engines.
func NewComponent(ctx context.Context, deps Dependencies, cfg Configuration) (*Component, error) {
	var db *statedb.SQLite
	switch st := deps.State.(type) {
	case *statedb.SQLite:
		db = st
	case *statedb.Postgres:
		db = st.SQLite
	default:
		return nil, errors.New("alerts: the state store keeps no alert tables")
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, err := statedb.OpenAlerts(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("alerts: %w", err)
	}
	// Each owner's rules are answered by the engine of their standing queries.
	engine := func(ctx context.Context) *pvql.Engine { return deps.Rules(Owner(ctx)) }
	var live func(context.Context, string) (Standing, error)
	var changes *records.Changes
	if cr, ok := deps.Records.(records.ChangeReporter); ok {
		// As for followed queries: only where the store reports every change (DuckDB).
		changes = cr.Changes()
		live = func(ctx context.Context, expr string) (Standing, error) {
			l, err := engine(ctx).Live(expr, changes)
			if err != nil {
				return nil, err
			}
			return standing{l, deps.DefaultPeriod}, nil
		}
	}
	each := func(ctx context.Context, exprs []string, now time.Time) ([]pvql.Result, error) {
		var sts []*pvql.Statement
		for _, x := range exprs {
			s, err := pvql.Parse(x)
			if err != nil {
				return nil, err
			}
			sts = append(sts, s...)
		}
		res, err := engine(ctx).AnswerEach(ctx, sts, now, deps.DefaultPeriod())
		return res, wire.QueryError(err)
	}
	s, err := New(st, Options{Live: live, Each: each,
		Query: func(ctx context.Context, expr string, now time.Time) ([]pvql.Result, error) {
			res, err := engine(ctx).Query(ctx, expr, now, deps.DefaultPeriod())
			return res, wire.QueryError(err)
		},
		WebhookAllow: cfg.WebhookAllow, Listen: cfg.Listen, WebhookRoots: cfg.WebhookRoots, SMTP: cfg.SMTP, Backoff: cfg.Backoff,
		Logger: deps.Logger, Announcer: deps.Announcer, Mitigation: deps.Mitigation, Zones: deps.Zones,
		Audit: deps.State.AppendAudit, MaxMitigations: cfg.MaxMitigations, MitigationHold: cfg.MitigationHold,
		MitigationDelay: cfg.MitigationDelay, Changes: changes, MaxTransitions: cfg.MaxTransitions,
		MaxHourlyTransitions: cfg.MaxHourlyTransitions, MaxWaiting: cfg.MaxWaiting,
	})
	if err != nil {
		return nil, err
	}
	return &Component{service: s, log: s.log, shared: deps.Shared}, nil
}

// standing is a live answer of pvql as a Service wants it.
type standing struct {
	*pvql.Live
	period func() time.Duration
}

func (s standing) Answer(ctx context.Context, now time.Time) ([]pvql.Result, error) {
	res, err := s.Live.Answer(ctx, now, s.period())
	return res, wire.QueryError(err)
}

// Service returns the service of the rules.
func (c *Component) Service() *Service { return c.service }

// Register adds the alert functions (API 1.3) to reg.
func (c *Component) Register(reg *registry.Registry) error { return c.service.Register(reg) }

// Evaluating reports whether this node evaluates the alert rules now (holds their lease).
func (c *Component) Evaluating() bool { return c.evaluating.Load() }

// Start evaluates the rules and sends their notifications until Stop: on this node, or with
// several nodes on the one that holds the lease.
func (c *Component) Start() error {
	run := func(ctx context.Context) {
		c.evaluating.Store(true)
		defer c.evaluating.Store(false)
		c.service.NewEvaluator().Run(ctx)
	}
	if c.shared != "" {
		c.lease = &cluster.Lease{Name: "alerts", Key: leaseKey, Run: run, Logger: c.log}
		c.lease.Start(c.shared)
		return nil
	}
	ctx, stop := context.WithCancel(context.Background())
	c.stop = stop
	c.wg.Go(func() { run(ctx) })
	return nil
}

// Stop stops the evaluation and waits for it.
func (c *Component) Stop() error {
	if c.stop != nil {
		c.stop()
	}
	if c.lease != nil {
		c.lease.Close()
	}
	c.wg.Wait()
	return nil
}
