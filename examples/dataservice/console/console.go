package console

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
)

// Configuration is the console's part of the service's configuration: the defaults of the
// configuration keys an administrator may change while the service runs (set-config).
type Configuration struct {
	// SessionIdle and SessionMax are the defaults of the session_idle and session_max
	// configuration keys. Default (0): manage's built-in defaults, 1 h and 24 h.
	SessionIdle, SessionMax time.Duration
	// RateLimit is the default of the rate_limit configuration key: calls per second per
	// caller, in bursts of twice as many. Default: 200 (DefaultRateLimit; 0 is the same);
	// NoRateLimit turns the limit off.
	RateLimit int
}

// DefaultConfiguration returns the documented defaults.
func DefaultConfiguration() Configuration { return Configuration{RateLimit: DefaultRateLimit} }

// Dependencies are what the console uses.
type Dependencies struct {
	// State keeps the configuration, dashboards, widgets and the audit trail.
	State state.Store
	// Auth authenticates the calls; its session limits follow the configuration.
	Auth *auth.Authenticator
	// Logger receives the console's log. Default: none.
	Logger *zap.Logger
	// TracerProvider, when set, traces every call (see github.com/fnapi/fnapi/otel).
	TracerProvider trace.TracerProvider
	// Pingers are what readiness checks, by name: the stores a node cannot serve without.
	Pingers func() map[string]func(context.Context) error
	// Idempotency keeps the answers of calls made with an Idempotency-Key, shared by the
	// nodes. Default: nil, the handler's own, in memory.
	Idempotency transport.IdempotencyStore
}

// Component is the console: the configuration keys (manage.Settings), the functions of
// package manage, the web UI, and the HTTP handler that serves every component's functions
// (under /api/, with the MCP endpoint), the metrics, the health paths and the web UI.
type Component struct {
	cfg      Configuration
	deps     Dependencies
	log      *zap.Logger
	settings *manage.Settings
	limit    callLimit

	functions []func(*registry.Registry) error // the other components'
	metrics   []func(http.Handler) http.Handler
	api       *fnapi.Handler
	handler   http.Handler
	draining  atomic.Bool
}

// New reads the configuration keys (cfg gives the defaults of those never set) and applies
// them now and on every change: the session limits and the call rate limit.
func New(ctx context.Context, deps Dependencies, cfg Configuration) (*Component, error) {
	if deps.Logger == nil {
		deps.Logger = zap.NewNop()
	}
	c := &Component{cfg: cfg, deps: deps, log: deps.Logger}
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
	var err error
	if c.settings, err = manage.NewSettings(ctx, deps.State, defaults...); err != nil {
		return nil, fmt.Errorf("console: configuration: %w", err)
	}
	c.settings.Watch(func(mc manage.Config) {
		if err := deps.Auth.SetSessionLimits(mc.SessionIdle, mc.SessionMax); err != nil {
			c.log.Error("applying session limits", zap.Error(err))
		}
		c.limit.set(mc.RateLimit)
	})
	return c, nil
}

// Settings returns the configuration keys, which the other components follow.
func (c *Component) Settings() *manage.Settings { return c.settings }

// AddFunctions adds the functions register puts in the registry the handler serves; it is
// called before Start.
func (c *Component) AddFunctions(register func(*registry.Registry) error) {
	c.functions = append(c.functions, register)
}

// AddMetrics adds what wrap writes to the metrics of /metrics; it is called before Start.
func (c *Component) AddMetrics(wrap func(http.Handler) http.Handler) {
	c.metrics = append(c.metrics, wrap)
}

// Start builds the handler: every function registered (the console's and those of
// AddFunctions), behind the interceptors.
func (c *Component) Start() error {
	h, err := c.newHandler()
	if err != nil {
		return err
	}
	c.handler = h
	return nil
}

// Stop ends the WebSocket connections; their running calls may finish until ctx is done.
func (c *Component) Stop(ctx context.Context) error {
	c.Drain()
	if c.api == nil {
		return nil
	}
	return c.api.Shutdown(ctx)
}

// Handler answers every request of the service: the API under /api/, metrics at /metrics, the
// health paths and the web UI at /.
func (c *Component) Handler() http.Handler { return c.handler }
