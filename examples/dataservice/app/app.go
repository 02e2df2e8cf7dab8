package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/sqlstore"
	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/cluster"
	"github.com/fnapi/fnapi/examples/dataservice/console"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/query"
	"github.com/fnapi/fnapi/examples/dataservice/queue"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
)

// Config is the service's configuration tree: what the command line sets, once. The zero value
// of each field but DataDir is usable; DefaultConfig gives the documented defaults.
type Config struct {
	// DataDir holds everything the service keeps: records.duckdb, state.db, auth.db, tls/ and
	// admin-password. Default: "./data" on the command line; required here.
	DataDir string
	// ClickHouse, when set, keeps the records in ClickHouse
	// (clickhouse://[user[:password]@]host:port/database) instead of <DataDir>/records.duckdb;
	// ClickHouseCluster names the cluster whose shards hold them. Default: "" (DuckDB).
	ClickHouse, ClickHouseCluster string
	// Postgres is the URL of a PostgreSQL database (postgres://user[:password]@host:port/db?...)
	// that holds the users, sessions, API keys, dashboards, widgets and configuration instead of
	// auth.db and state.db, shared with the other nodes of the service. Default: "" (SQLite).
	Postgres string
	// Inlet is what the service collects (package inlet): flows, the capture probe, GeoIP
	// files, the demo generator. Default: inlet.DefaultConfiguration(), the ingest function only.
	Inlet inlet.Configuration
	// Query bounds the queries (package query). Default: query.DefaultConfiguration().
	Query query.Configuration
	// Console holds the defaults of the configuration keys (package console). Default:
	// console.DefaultConfiguration().
	Console console.Configuration
	// Alerts configures the alerts' notifications (package alerts). Default:
	// alerts.DefaultConfiguration(), webhooks to public addresses only and no e-mail.
	Alerts alerts.Configuration
	// Logger receives the service's log. Default: nil, none.
	Logger *zap.Logger
	// Auth adds options to the authenticator (tests lower the password hashing cost). Default:
	// none.
	Auth []auth.Option
	// TracerProvider, when set, traces every call (see github.com/fnapi/fnapi/otel) and the
	// records store's queries, ingests and deletions as its children. Default: nil, no tracing.
	TracerProvider trace.TracerProvider
	// BGP is the BGP speaker's configuration (-bgp, -bgp-as, -bgp-peers; package bgp): routers
	// peer with it, their routes give records their AS path and communities, alerts announce
	// mitigations through it. Default: Listen "", no speaker.
	BGP bgp.Config
}

// DefaultConfig returns the documented defaults of every component's configuration, with
// dataDir.
func DefaultConfig(dataDir string) Config {
	return Config{DataDir: dataDir, Inlet: inlet.DefaultConfiguration(), Query: query.DefaultConfiguration(),
		Console: console.DefaultConfiguration(), Alerts: alerts.DefaultConfiguration()}
}

// App is an open data service: its stores, and its components in the order they start (the
// inlet, query, the console with alerts' functions, then the background work); Close stops
// them in reverse.
type App struct {
	cfg      Config
	log      *zap.Logger
	records  records.Store
	engineOf *records.Engine // records' engine (records.Open's table)
	store    records.Store   // records, traced when Config.TracerProvider is set, with context
	queue    *queue.Queue    // -queue; nil without
	bgp      *bgp.Speaker    // -bgp; nil without
	consumer consumer        // -consume
	state    state.Store
	users    *sqlstore.Store
	usersDB  *sql.DB               // the users' PostgreSQL connections; nil on SQLite
	idem     *sqlstore.Idempotency // Idempotency-Key answers in usersDB; nil: the handler's own, in memory
	auth     *auth.Authenticator
	listener *cluster.Listener

	console *console.Component
	inlet   *inlet.Component
	query   *query.Component
	alerts  *alerts.Component

	stop      context.CancelFunc
	wg        sync.WaitGroup
	lease     *cluster.Lease // retention's, when it runs on one node at a time
	retainNow chan struct{}  // a changed retention applies at once
}

// Open opens the stores in cfg.DataDir (creating what is missing) or, with cfg.Postgres, the
// shared ones in PostgreSQL, creates the administrator on a first start, and starts the
// components in the order of the steps below. On an error, Close stops what was started.
func Open(ctx context.Context, cfg Config) (*App, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("app: no data directory")
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	a := &App{cfg: cfg, log: cfg.Logger, retainNow: make(chan struct{}, 1)}
	for _, step := range []func(context.Context) error{
		a.openStores,       // 1. records, state, users and the authenticator
		a.newConsole,       // 2. the configuration keys, which the others follow
		a.openBGP,          // 2b. the BGP speaker, whose routes the inlet looks up
		a.newInlet,         // 3. the records' context
		a.newQuery,         // 4. the engine, over the records with their context
		a.newAlerts,        // 5. the alert tables, answered by query's engines
		a.ensureDashboards, // 6. what -demo and the probe show on a first start
		a.startConsole,     // 7. the handler, with every component's functions
		a.startWork,        // 8. the inlet's collectors, the notifications, alerts, retention
	} {
		if err := step(ctx); err != nil {
			_ = a.Close(context.Background())
			return nil, err
		}
	}
	return a, nil
}

func (a *App) newConsole(ctx context.Context) (err error) {
	deps := console.Dependencies{State: a.state, Auth: a.auth, Logger: a.log,
		TracerProvider: a.cfg.TracerProvider, Pingers: a.pingers}
	if a.idem != nil { // never a nil *Idempotency in the interface: nil keeps the handler's own
		deps.Idempotency = a.idem
	}
	a.console, err = console.New(ctx, deps, a.cfg.Console)
	if err != nil {
		return err
	}
	a.console.Settings().Watch(func(manage.Config) {
		select {
		case a.retainNow <- struct{}{}:
		default: // a pass is already due
		}
	})
	return nil
}

func (a *App) newInlet(ctx context.Context) (err error) {
	a.inlet, err = inlet.New(ctx, inlet.Dependencies{Records: a.viaQueue(a.records), State: a.state, Settings: a.console.Settings(),
		Logger: a.log, DataDir: a.cfg.DataDir, Shared: a.cfg.Postgres, DemoSetup: a.demoSetup, Queue: a.queueStatus, BGP: a.bgpStatus,
		Routes: a.bgp}, a.cfg.Inlet)
	if err != nil {
		return err
	}
	a.store = inlet.Enrich(a.viaQueue(a.store), a.inlet.Resolver(), a.inlet.Routes())
	return nil
}

func (a *App) newQuery(ctx context.Context) (err error) {
	a.query, err = query.New(ctx, query.Dependencies{Records: a.records, Store: a.store,
		DefaultPeriod: a.console.Settings().DefaultPeriod, TracerProvider: a.cfg.TracerProvider, System: a.engineOf.Name, Queue: a.queueState(),
		IngestNeedsAdmin: a.mitigating}, a.cfg.Query)
	if err != nil {
		return fmt.Errorf("app: %w", err)
	}
	return nil
}

func (a *App) newAlerts(ctx context.Context) (err error) {
	a.alerts, err = alerts.NewComponent(ctx, alerts.Dependencies{State: a.state, Records: a.records, Rules: a.query.Rules,
		DefaultPeriod: a.console.Settings().DefaultPeriod, Logger: a.log, Shared: a.cfg.Postgres,
		Announcer: a.announcer(), Mitigation: a.mitigation, Zones: func() *netctx.Zones { return a.inlet.Resolver().Zones() }}, a.cfg.Alerts)
	if err != nil {
		return fmt.Errorf("app: %w", err)
	}
	return nil
}

// announcer is what alert rules announce their routes through: the BGP speaker, nil (BGP
// off) without -bgp.
func (a *App) announcer() alerts.Announcer {
	if a.bgp == nil {
		return nil // not a nil *bgp.Speaker in the interface
	}
	return a.bgp
}

// mitigating reports whether alert rules may announce routes: BGP is on and mitigation_zones
// names zones. Ingest is then for administrators (traffic.Service.IngestNeedsAdmin).
func (a *App) mitigating() bool {
	return a.bgp != nil && len(a.mitigation().Zones) > 0
}

// mitigation returns the configuration keys of the routes alert rules announce.
func (a *App) mitigation() alerts.MitigationSettings {
	c := a.console.Settings().Config()
	zones, _ := manage.ParseMitigationZones(c.MitigationZones) // checked when set
	hops, _ := manage.ParseBlackholeNexthop(c.BlackholeNexthop)
	return alerts.MitigationSettings{Zones: zones, NextHops: hops}
}

// startConsole builds the handler with the functions and metrics of every component.
func (a *App) startConsole(context.Context) error {
	a.console.AddFunctions(a.query.Register)
	a.console.AddFunctions(a.inlet.Register)
	a.console.AddFunctions(a.alerts.Register)
	a.console.AddMetrics(a.inlet.MetricsHandler)
	a.console.AddMetrics(a.queueMetrics)
	a.console.AddMetrics(a.bgpMetrics)
	return a.console.Start()
}

// startWork makes the demo's context, dashboard and rules on a single node's first start (with
// several, the demo's lease holder does), then starts the inlet's collectors and background
// work, the notifications from the other nodes, the alerts' evaluation and retention.
func (a *App) startWork(ctx context.Context) error {
	if a.cfg.Inlet.Demo {
		a.log.Warn("demo: synthetic traffic is stored with the real records, and the first start makes demo zones, applications, dashboards and alert rules; start without -demo to stop the traffic (what it made stays until deleted)")
	}
	if a.cfg.Inlet.Demo && a.cfg.Postgres == "" {
		if err := a.ensureDemo(ctx); err != nil {
			return err
		}
	}
	if err := a.inlet.Start(ctx); err != nil {
		return err
	}
	a.listen()
	if err := a.alerts.Start(); err != nil {
		return err
	}
	a.start()
	a.startConsumer()
	return nil
}

// openStores opens the records store, the shared stores and the authenticator, and creates
// the administrator on a first start.
func (a *App) openStores(ctx context.Context) (err error) {
	if a.records, a.engineOf, err = openRecords(ctx, a.cfg); err != nil {
		return fmt.Errorf("app: %w", err) // records' errors say "records: ..."
	}
	a.store = a.records
	if tp := a.cfg.TracerProvider; tp != nil {
		a.store = query.TracedStore(a.records, tp, a.engineOf.Name)
	}
	if err := a.openShared(ctx); err != nil {
		return err
	}
	if err := a.openQueue(ctx); err != nil {
		return err
	}
	authOpts := append([]auth.Option{auth.WithLogger(a.log)}, a.cfg.Auth...)
	if a.auth, err = auth.New(a.users, authOpts...); err != nil {
		return fmt.Errorf("app: %w", err)
	}
	if err := a.auth.EnsureAdmin(ctx, a.cfg.DataDir); err != nil {
		return fmt.Errorf("app: %w", err)
	}
	return nil
}

// ensureDashboards makes, once in the life of the store, the overview with -demo on a single
// node (with several, the demo's lease holder does it) and the "Application performance"
// dashboard with the capture probe.
func (a *App) ensureDashboards(ctx context.Context) error {
	if a.cfg.Inlet.Demo && a.cfg.Postgres == "" {
		if err := a.ensureOverview(ctx); err != nil {
			return err
		}
	}
	return a.ensurePerfDashboard(ctx)
}

// FlowAddrs returns the addresses the NetFlow and sFlow collectors listen on ("" for none), for
// tests that ask for port 0.
func (a *App) FlowAddrs() (netflow, sflow string) { return a.inlet.FlowAddrs() }

// Resolver returns what gives records their context.
func (a *App) Resolver() *netctx.Resolver { return a.inlet.Resolver() }

// recordsURL is the URL of the records store the command line chooses, which names its
// engine (records.Open's table): -clickhouse's URL, else DuckDB in DataDir.
func (cfg Config) recordsURL() string {
	if cfg.ClickHouse != "" {
		return cfg.ClickHouse
	}
	return records.DefaultScheme + ":" + cfg.DataDir
}

// openRecords opens the records store cfg chooses with the engine of its URL. On an error the
// store is a nil interface, never a nil pointer in one, so that closing what was opened skips
// it.
func openRecords(ctx context.Context, cfg Config) (records.Store, *records.Engine, error) {
	// The stores' background work (DuckDB's rollup step, ClickHouse's rollup repair) reports
	// its failures in the service's log.
	logError := records.WithErrorLog(func(msg string, err error) { cfg.Logger.Error(msg, zap.Error(err)) })
	url := cfg.recordsURL()
	e, err := records.EngineOf(url)
	if err == nil && cfg.ClickHouseCluster != "" && !e.Clusters {
		err = errors.New("records: a ClickHouse cluster needs the URL of one of its servers")
	}
	if err != nil {
		return nil, nil, err
	}
	st, err := e.Open(ctx, url, cfg.ClickHouseCluster, logError)
	if err != nil {
		return nil, nil, err
	}
	return st, e, nil
}

// Records returns the store of traffic records, for bulk loading in benchmarks and tools.
func (a *App) Records() records.Store { return a.records }

// Handler answers every request of the service: the API under /api/, metrics at /metrics and
// the web UI at /.
func (a *App) Handler() http.Handler { return a.console.Handler() }

// Drain makes the node answer not ready from now on, so that load balancers stop sending it
// new connections before it shuts down; it keeps serving what it receives meanwhile.
func (a *App) Drain() { a.console.Drain() }

// Close stops the components: the console first, as serving is what starts last (it ends the
// WebSocket connections; their running calls may finish until ctx is done), then the inlet
// (it stores what it received), retention, the alerts, the notifications, the authenticator
// and the stores. The HTTP server should have been shut down before, so that no new call
// arrives. It closes what a failed Open had started.
func (a *App) Close(ctx context.Context) error {
	var errs []error
	if a.console != nil {
		errs = append(errs, a.console.Stop(ctx))
	}
	if a.inlet != nil {
		errs = append(errs, a.inlet.Stop()) // stores what was received, before the store closes
	}
	if a.query != nil {
		errs = append(errs, a.query.Stop())
	}
	if a.stop != nil {
		a.stop()
	}
	if a.lease != nil {
		a.lease.Close()
	}
	a.wg.Wait()
	a.consumer.stop() // the batch being stored is stored and acknowledged
	if a.alerts != nil {
		errs = append(errs, a.alerts.Stop())
	}
	if a.listener != nil {
		a.listener.Close()
	}
	if a.auth != nil {
		errs = append(errs, a.auth.Close(ctx))
	}
	errs = append(errs, a.closeStores())
	return errors.Join(errs...)
}

func (a *App) closeStores() error {
	var errs []error
	if a.users != nil {
		errs = append(errs, a.users.Close())
	}
	if a.usersDB != nil {
		errs = append(errs, a.usersDB.Close())
	}
	if a.state != nil {
		errs = append(errs, a.state.Close())
	}
	if a.queue != nil {
		errs = append(errs, a.queue.Close())
	}
	if a.bgp != nil {
		a.bgp.Stop()
	}
	if a.records != nil {
		errs = append(errs, a.records.Close())
	}
	return errors.Join(errs...)
}
