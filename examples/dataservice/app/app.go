package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
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
	"github.com/fnapi/fnapi/examples/dataservice/collect"
	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/traffic"
	"github.com/fnapi/fnapi/examples/dataservice/webui"
	"github.com/fnapi/fnapi/jsonrpc"
	fnotel "github.com/fnapi/fnapi/otel"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
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
	// Demo runs the generator of synthetic traffic (24 hours of backfill, then live).
	Demo bool
	// SessionIdle and SessionMax are the defaults of the session_idle and session_max
	// configuration keys; zero keeps the built-in defaults (1 h, 24 h).
	SessionIdle, SessionMax time.Duration
	// RateLimit is the default of the rate_limit configuration key: calls per second per
	// caller, in bursts of twice as many. Default (0): DefaultRateLimit; NoRateLimit turns the
	// limit off.
	RateLimit int
	// MaxQueryGroups is the most groups the statements of one query may yield together; more
	// answer TOO-MANY-GROUPS. Default: DefaultMaxQueryGroups.
	MaxQueryGroups int
	// QueryGroupBudget is the most groups all queries running at once may hold together; a
	// query past it answers RATE-LIMITED. Default: DefaultQueryGroupBudget (never below
	// MaxQueryGroups).
	QueryGroupBudget int
	// QueryMemory is DuckDB's memory_limit in bytes (the embedded store only). Default:
	// DefaultQueryMemory.
	QueryMemory int64
	// QueryThreads is how many threads DuckDB uses (the embedded store only). Default:
	// GOMAXPROCS.
	QueryThreads int
	// MaxFollows is the most followed queries one caller may hold open at once; one more
	// answers LIMIT-REACHED. Default: traffic.DefaultMaxFollows.
	MaxFollows int
	// StandingGroupBudget is the most groups standing queries (alert rules, followed queries)
	// keep between their answers, all together, out of QueryGroupBudget. Default: half of
	// QueryGroupBudget (DefaultStandingGroupBudget).
	StandingGroupBudget int
	// StandingGroupsPerUser is the most groups the standing queries of one user keep between
	// their answers, and the most groups one alert rule's query may yield. Default: a quarter
	// of StandingGroupBudget (DefaultStandingGroupsPerUser).
	StandingGroupsPerUser int
	// Logger receives the service's log. Default: none.
	Logger *zap.Logger
	// Auth adds options to the authenticator (tests lower the password hashing cost).
	Auth []auth.Option
	// NetFlow and SFlow are UDP addresses ("host:port") to collect NetFlow v5/v9/IPFIX and
	// sFlow v5 on (package collect); "" collects none.
	NetFlow, SFlow string
	// Collect sets the collector's bounds; zero fields take collect's defaults.
	Collect collect.Limits
	// Capture names the interfaces the capture probe captures on (AF_PACKET, Linux, root or
	// CAP_NET_RAW), CaptureFile a pcap or pcapng file it reads once at full speed, and
	// CaptureFilter a BPF filter in tcpdump's syntax for both (needs tcpdump). Default: none.
	Capture       []string
	CaptureFile   string
	CaptureFilter string
	// CaptureSensor is the address the probe's records name as their exporter, so that the
	// records of several sensors sharing one store say which saw them. Default: for an
	// interface, its address (else the host's, see sensorAddr); none for CaptureFile.
	CaptureSensor netip.Addr
	// TracerProvider, when set, traces every call (see github.com/fnapi/fnapi/otel) and the
	// records store's queries, ingests and deletions as its children. Default: no tracing.
	TracerProvider trace.TracerProvider
	// Postgres is the URL of a PostgreSQL database (postgres://user[:password]@host:port/db?...)
	// that holds the users, sessions, API keys, dashboards, widgets and configuration instead of
	// auth.db and state.db, shared with the other nodes of the service. Default: none (SQLite).
	Postgres string
	// GeoIPASN and GeoIPCountry are MaxMind DB files (GeoLite2-ASN, GeoLite2-Country or -City
	// layouts), read again when they change on disk, checked every GeoIPPoll (default
	// netctx.DefaultPollInterval). Default: none (ASNs and countries unknown).
	GeoIPASN, GeoIPCountry string
	GeoIPPoll              time.Duration
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
	// ingest stores the records of the collectors, the capture probe and the demo generator,
	// with their context (contextStore), untraced.
	ingest   records.Store
	state    state.Store
	users    *sqlstore.Store
	usersDB  *sql.DB                    // the users' PostgreSQL connections; nil on SQLite
	idem     transport.IdempotencyStore // Idempotency-Key answers in usersDB; nil: the handler's own, in memory
	listener *cluster.Listener
	auth     *auth.Authenticator
	settings *manage.Settings
	handler  http.Handler
	api      *fnapi.Handler
	flows    *collect.Collector // nil without -netflow and -sflow
	flowAddr [2]string          // where flows and sFlow are received
	capture  *capturing         // nil without -capture and -capture-file
	limit    callLimit
	engine   *pvql.Engine
	// standing are the budgets of what alert rules and followed queries keep.
	standing *standingBudgets
	nctx     *netContext // zones, applications, GeoIP and SNMP names
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
			if opened.flows != nil {
				opened.flows.Close()
			}
			if opened.capture != nil {
				opened.capture.close()
			}
			opened.closeStores()
		}
	}()
	if a.records, a.engineOf, err = openRecords(ctx, cfg); err != nil {
		return nil, fmt.Errorf("app: %w", err) // records' errors say "records: ..."
	}
	a.store = a.records
	if tp := cfg.TracerProvider; tp != nil {
		a.store = tracedStore{Store: a.records, tracer: tp.Tracer(tracerName), system: a.engineOf.Name}
	}
	if err := a.openShared(ctx); err != nil {
		return nil, err
	}
	var defaults []manage.SettingsOption
	if cfg.SessionIdle > 0 {
		defaults = append(defaults, manage.WithDefault(manage.KeySessionIdle, manage.FormatDuration(cfg.SessionIdle)))
	}
	if cfg.SessionMax > 0 {
		defaults = append(defaults, manage.WithDefault(manage.KeySessionMax, manage.FormatDuration(cfg.SessionMax)))
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
	if err := a.demoGeoIP(); err != nil {
		return nil, err
	}
	if a.nctx, err = a.openContext(ctx); err != nil {
		return nil, err
	}
	a.store = contextStore{Store: a.store, resolver: a.nctx.resolver}
	a.ingest = contextStore{Store: a.records, resolver: a.nctx.resolver}
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
	if cfg.Demo && cfg.Postgres == "" { // with several nodes, the demo's lease holder does it
		if err := a.ensureOverview(ctx); err != nil {
			return nil, err
		}
	}
	if a.engine, err = a.queryEngine(ctx); err != nil {
		return nil, err
	}
	a.standing = newStanding(a.engine, cfg)
	if err := a.startCollector(); err != nil {
		return nil, err
	}
	if a.capture, err = openCapture(ctx, cfg); err != nil {
		return nil, err
	}
	if err = a.ensurePerfDashboard(ctx); err != nil {
		return nil, err
	}
	if a.handler, err = a.newHandler(); err != nil {
		return nil, err
	}
	if cfg.Demo && cfg.Postgres == "" { // with several nodes, the demo's lease holder does it
		if err := a.ensureDemo(ctx); err != nil {
			return nil, err
		}
	}
	a.listen()
	a.start()
	return a, nil
}

// startCollector listens for flows on cfg.NetFlow and cfg.SFlow, when set.
func (a *App) startCollector() error {
	if a.cfg.NetFlow == "" && a.cfg.SFlow == "" {
		return nil
	}
	a.flows = collect.New(a.ingest, a.log, a.cfg.Collect)
	for i, l := range []struct {
		proto collect.Protocol
		addr  string
	}{{collect.NetFlow, a.cfg.NetFlow}, {collect.SFlow, a.cfg.SFlow}} {
		if l.addr == "" {
			continue
		}
		at, err := a.flows.Listen(l.proto, l.addr)
		if err != nil {
			return fmt.Errorf("app: %w", err)
		}
		a.flowAddr[i] = at.String()
		a.log.Info("collecting flows", zap.String("protocol", l.proto.String()), zap.Stringer("addr", at))
	}
	return nil
}

// FlowAddrs returns the addresses the NetFlow and sFlow collectors listen on ("" for none), for
// tests that ask for port 0.
func (a *App) FlowAddrs() (netflow, sflow string) { return a.flowAddr[0], a.flowAddr[1] }

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
	svc := &traffic.Service{
		Engine:        a.engine,
		Store:         a.store,
		DefaultPeriod: a.settings.DefaultPeriod,
		MaxFollows:    a.maxFollows(),
	}
	if cr, ok := a.records.(records.ChangeReporter); ok {
		// The store reports all the records' changes (DuckDB: only this process writes its
		// file), so followed queries answer from them. Elsewhere (ClickHouse, which other
		// nodes may write) a followed query answers its whole period each interval.
		changes := cr.Changes()
		svc.Live = func(ctx context.Context, expr string) (traffic.Live, error) {
			l, err := a.standing.of(userOf(ctx)).follows.Live(expr, changes)
			if err != nil {
				return nil, err
			}
			return l, nil
		}
	}
	if tp := a.cfg.TracerProvider; tp != nil {
		svc.Engine = tracedEngine{next: svc.Engine, tracer: tp.Tracer(tracerName), system: a.engineOf.Name}
		if live := svc.Live; live != nil {
			svc.Live = func(ctx context.Context, expr string) (traffic.Live, error) {
				l, err := live(ctx, expr)
				if err != nil {
					return nil, err
				}
				return tracedLive{next: l, tracer: tp.Tracer(tracerName), system: a.engineOf.Name}, nil
			}
		}
	}
	for _, register := range []func(*registry.Registry) error{
		fnapi.RegisterBuiltins,
		func(r *registry.Registry) error {
			return a.auth.Register(r, auth.ForFunc("set-role", registry.Since(api.SetRole.SinceText())),
				auth.ForFunc("whoami", registry.Since(api.Whoami.SinceText())))
		},
		svc.Register,
		func(r *registry.Registry) error { return manage.Register(r, a.state, a.settings) },
		a.registerCollectorStatus,
		a.registerContext,
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
		fnapi.WithJSONRPC(jsonrpc.Options{}),
		fnapi.WithIdempotencyStore(a.idem))
	if err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", a.api))
	metricsHandler := a.api.Metrics()
	if a.flows != nil {
		metricsHandler = a.flows.MetricsHandler(metricsHandler)
	}
	if a.capture != nil {
		metricsHandler = a.capture.metricsHandler(metricsHandler)
	}
	mux.Handle("GET /metrics", metricsHandler)
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
	if a.flows != nil {
		errs = append(errs, a.flows.Close()) // stores what was received, before the store closes
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
