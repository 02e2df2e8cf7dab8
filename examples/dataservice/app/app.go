package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/sqlstore"
	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/cluster"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/query"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/webui"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
	"github.com/fnapi/fnapi/jsonrpc"
	fnotel "github.com/fnapi/fnapi/otel"
	"github.com/fnapi/fnapi/registry"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
)

// Config is what the command line sets. The zero value of each field but DataDir is usable.
type Config struct {
	// DataDir holds everything the service keeps: records.duckdb, state.db, auth.db, tls/ and
	// admin-password.
	DataDir string
	// ClickHouse, when set, keeps the records in ClickHouse
	// (clickhouse://[user[:password]@]host:port/database) instead of <DataDir>/records.duckdb;
	// ClickHouseCluster names the cluster whose shards hold them. Default: DuckDB.
	ClickHouse, ClickHouseCluster string
	// SessionIdle and SessionMax are the defaults of the session_idle and session_max
	// configuration keys; zero keeps the built-in defaults (1 h, 24 h).
	SessionIdle, SessionMax time.Duration
	// RateLimit is the default of the rate_limit configuration key: calls per second per
	// caller, in bursts of twice as many. Default (0): DefaultRateLimit; NoRateLimit turns the
	// limit off.
	RateLimit int
	// Query bounds the queries (package query). Default: query.DefaultConfiguration().
	Query query.Configuration
	// Logger receives the service's log. Default: none.
	Logger *zap.Logger
	// Auth adds options to the authenticator (tests lower the password hashing cost).
	Auth []auth.Option
	// Inlet is what the service collects (package inlet): flows, the capture probe, GeoIP
	// files, the demo generator. Default: inlet.DefaultConfiguration(), the ingest function only.
	Inlet inlet.Configuration
	// TracerProvider, when set, traces every call (see github.com/fnapi/fnapi/otel) and the
	// records store's queries, ingests and deletions as its children. Default: no tracing.
	TracerProvider trace.TracerProvider
	// Postgres is the URL of a PostgreSQL database (postgres://user[:password]@host:port/db?...)
	// that holds the users, sessions, API keys, dashboards, widgets and configuration instead of
	// auth.db and state.db, shared with the other nodes of the service. Default: none (SQLite).
	Postgres string
	// Alerts configures the alerts' notifications.
	Alerts AlertsConfig
}

// App is an open data service.
type App struct {
	cfg      Config
	log      *zap.Logger
	records  records.Store
	engineOf *records.Engine // records' engine (records.Open's table)
	store    records.Store   // records, traced when Config.TracerProvider is set, with context
	state    state.Store
	users    *sqlstore.Store
	usersDB  *sql.DB // the users' PostgreSQL connections; nil on SQLite
	listener *cluster.Listener
	auth     *auth.Authenticator
	settings *manage.Settings
	handler  http.Handler
	api      *fnapi.Handler
	inlet    *inlet.Component
	limit    callLimit
	query    *query.Component
	alerts   *alerts.Service
	alertsOn atomic.Bool // this node evaluates the alert rules now

	stop      context.CancelFunc
	wg        sync.WaitGroup
	leases    []*cluster.Lease
	retainNow chan struct{} // a changed retention applies at once
	draining  atomic.Bool
}

// Open opens the stores in cfg.DataDir (creating what is missing) or, with cfg.Postgres, the
// shared ones in PostgreSQL, registers every function, creates the administrator on a first
// start, and starts the background work (retention, and the demo generator with cfg.Demo) and,
// with several nodes, the notifications from the others. Close stops it all.
func Open(ctx context.Context, cfg Config) (a *App, err error) {
	if cfg.DataDir == "" {
		return nil, errors.New("app: no data directory")
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	a = &App{cfg: cfg, log: cfg.Logger, retainNow: make(chan struct{}, 1)}
	opened := a // a is nil once an error is returned
	defer func() {
		if err != nil {
			opened.closeStores()
		}
	}()
	if a.records, a.engineOf, err = openRecords(ctx, cfg); err != nil {
		return nil, fmt.Errorf("app: %w", err) // records' errors say "records: ..."
	}
	a.store = a.records
	if tp := cfg.TracerProvider; tp != nil {
		a.store = query.TracedStore(a.records, tp, a.engineOf.Name)
	}
	if err := a.openShared(ctx); err != nil {
		return nil, err
	}
	var defaults []manage.SettingsOption
	if cfg.SessionIdle > 0 {
		defaults = append(defaults, manage.WithDefault(manage.KeySessionIdle, wire.FormatDuration(cfg.SessionIdle)))
	}
	if cfg.SessionMax > 0 {
		defaults = append(defaults, manage.WithDefault(manage.KeySessionMax, wire.FormatDuration(cfg.SessionMax)))
	}
	switch {
	case cfg.RateLimit == NoRateLimit:
		defaults = append(defaults, manage.WithDefault(manage.KeyRateLimit, "0"))
	case cfg.RateLimit > 0:
		defaults = append(defaults, manage.WithDefault(manage.KeyRateLimit, strconv.Itoa(cfg.RateLimit)))
	}
	if a.settings, err = manage.NewSettings(ctx, a.state, defaults...); err != nil {
		return nil, fmt.Errorf("app: configuration: %w", err)
	}
	a.inlet, err = inlet.New(ctx, inlet.Dependencies{Records: a.records, State: a.state, Settings: a.settings,
		Logger: a.log, DataDir: cfg.DataDir, Shared: cfg.Postgres, DemoSetup: a.demoSetup}, cfg.Inlet)
	if err != nil {
		return nil, err
	}
	a.store = inlet.Enrich(a.store, a.inlet.Resolver())
	authOpts := append([]auth.Option{auth.WithLogger(a.log)}, cfg.Auth...)
	if a.auth, err = auth.New(a.users, authOpts...); err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	if err := a.auth.EnsureAdmin(ctx, cfg.DataDir); err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	a.settings.Watch(func(c manage.Config) {
		if err := a.auth.SetSessionLimits(c.SessionIdle, c.SessionMax); err != nil {
			a.log.Error("applying session limits", zap.Error(err))
		}
		a.limit.set(c.RateLimit)
		select {
		case a.retainNow <- struct{}{}:
		default: // a pass is already due
		}
	})
	if cfg.Inlet.Demo && cfg.Postgres == "" { // with several nodes, the demo's lease holder does it
		if err := a.ensureOverview(ctx); err != nil {
			return nil, err
		}
	}
	a.query, err = query.New(ctx, query.Dependencies{Records: a.records, Store: a.store,
		DefaultPeriod: a.settings.DefaultPeriod, TracerProvider: cfg.TracerProvider, System: a.engineOf.Name}, cfg.Query)
	if err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	if err = a.ensurePerfDashboard(ctx); err != nil {
		return nil, err
	}
	if a.handler, err = a.newHandler(); err != nil {
		return nil, err
	}
	if cfg.Inlet.Demo && cfg.Postgres == "" { // with several nodes, the demo's lease holder does it
		if err := a.ensureDemo(ctx); err != nil {
			return nil, err
		}
	}
	if err := a.inlet.Start(ctx); err != nil {
		return nil, err
	}
	a.listen()
	a.start()
	return a, nil
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

// registry returns a registry with every function of the service: API 1.0, 1.1 adding
// list-fields, 1.2 adding the exporter key, set-role, list-audit and whoami, and 1.3 the alerts.
func (a *App) registry() (*registry.Registry, error) {
	reg := registry.New()
	for _, register := range []func(*registry.Registry) error{
		fnapi.RegisterBuiltins,
		func(r *registry.Registry) error {
			return a.auth.Register(r, auth.ForFunc("set-role", registry.Since(api.SetRole.SinceText())),
				auth.ForFunc("whoami", registry.Since(api.Whoami.SinceText())))
		},
		a.query.Register,
		func(r *registry.Registry) error { return manage.Register(r, a.state, a.settings) },
		a.inlet.Register,
		a.registerAlerts,
	} {
		if err := register(reg); err != nil {
			return nil, fmt.Errorf("app: %w", err)
		}
	}
	return reg, nil
}

func (a *App) newHandler() (http.Handler, error) {
	reg, err := a.registry()
	if err != nil {
		return nil, err
	}
	ics := []registry.Interceptor{cluster.Interceptor(), a.auth.Interceptor(), a.limit.Interceptor(), keyCreation(), manage.AuditInterceptor(a.state, a.log, manage.WithAuditRetention(a.settings.AuditRetention))}
	if tp := a.cfg.TracerProvider; tp != nil {
		// Outermost, so that a call's span covers authentication and rate limits.
		ics = append([]registry.Interceptor{fnotel.Interceptor(fnotel.WithTracerProvider(tp))}, ics...)
	}
	a.api, err = fnapi.New(reg,
		fnapi.WithLogger(a.log),
		fnapi.WithMetrics(),
		fnapi.WithInterceptors(ics...),
		fnapi.WithMCP(agents),
		fnapi.WithJSONRPC(jsonrpc.Options{}))
	if err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", a.api))
	mux.Handle("GET /metrics", a.inlet.MetricsHandler(a.api.Metrics()))
	mux.HandleFunc("GET "+LivePath, a.live)
	mux.HandleFunc("GET "+ReadyPath, a.ready)
	mux.Handle("/", webui.Handler())
	return mux, nil
}

// Records returns the store of traffic records, for bulk loading in benchmarks and tools.
func (a *App) Records() records.Store { return a.records }

// Handler answers every request of the service: the API under /api/, metrics at /metrics and
// the web UI at /.
func (a *App) Handler() http.Handler { return a.handler }

// Close ends the WebSocket connections (their running calls may finish until ctx is done),
// stops the background work and closes the stores. The HTTP server should have been shut down
// before, so that no new call arrives.
func (a *App) Close(ctx context.Context) error {
	var errs []error
	a.Drain()
	if a.api != nil {
		errs = append(errs, a.api.Shutdown(ctx))
	}
	if a.inlet != nil {
		errs = append(errs, a.inlet.Stop()) // stores what was received, before the store closes
	}
	if a.stop != nil {
		a.stop()
	}
	for _, l := range a.leases {
		l.Close()
	}
	a.wg.Wait()
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
	if a.records != nil {
		errs = append(errs, a.records.Close())
	}
	return errors.Join(errs...)
}
