package console

import (
	"fmt"
	"net/http"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/cluster"
	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/webui"
	"github.com/fnapi/fnapi/jsonrpc"
	fnotel "github.com/fnapi/fnapi/otel"
	"github.com/fnapi/fnapi/registry"
)

// registry returns a registry with every function of the service: API 1.0, 1.1 adding
// list-fields, 1.2 adding the exporter key, set-role, list-audit and whoami, and 1.3 the alerts.
// The registry lists them by name, whatever the order they are added in.
func (c *Component) registry() (*registry.Registry, error) {
	reg := registry.New()
	for _, register := range append([]func(*registry.Registry) error{
		fnapi.RegisterBuiltins,
		func(r *registry.Registry) error {
			return c.deps.Auth.Register(r, auth.ForFunc("set-role", registry.Since(api.SetRole.SinceText())),
				auth.ForFunc("whoami", registry.Since(api.Whoami.SinceText())))
		},
		func(r *registry.Registry) error { return manage.Register(r, c.deps.State, c.settings) },
	}, c.functions...) {
		if err := register(reg); err != nil {
			return nil, fmt.Errorf("console: %w", err)
		}
	}
	return reg, nil
}

// newHandler returns the handler of the service: the API behind its interceptors (tracing,
// the cluster's, authentication, rate limits, the audit trail), metrics, health, the web UI.
func (c *Component) newHandler() (http.Handler, error) {
	reg, err := c.registry()
	if err != nil {
		return nil, err
	}
	ics := []registry.Interceptor{cluster.Interceptor(), c.deps.Auth.Interceptor(), c.limit.Interceptor(), keyCreation(),
		manage.AuditInterceptor(c.deps.State, c.log, manage.WithAuditRetention(c.settings.AuditRetention))}
	if tp := c.deps.TracerProvider; tp != nil {
		// Outermost, so that a call's span covers authentication and rate limits.
		ics = append([]registry.Interceptor{fnotel.Interceptor(fnotel.WithTracerProvider(tp))}, ics...)
	}
	c.api, err = fnapi.New(reg,
		fnapi.WithLogger(c.log),
		fnapi.WithMetrics(),
		fnapi.WithInterceptors(ics...),
		fnapi.WithMCP(agents),
		fnapi.WithJSONRPC(jsonrpc.Options{}),
		fnapi.WithIdempotencyStore(c.deps.Idempotency))
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	metrics := c.api.Metrics()
	for _, wrap := range c.metrics {
		metrics = wrap(metrics)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", c.api))
	mux.Handle("GET /metrics", metrics)
	mux.HandleFunc("GET "+LivePath, c.live)
	mux.HandleFunc("GET "+ReadyPath, c.ready)
	mux.Handle("/", webui.Handler())
	return mux, nil
}
