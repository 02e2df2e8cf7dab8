// Package console is the console component of the data service: the configuration keys an
// administrator changes while it runs (manage.Settings, with the defaults its Configuration
// gives), the functions of package manage (dashboards, widgets, configuration, audit), the web
// UI (package webui), and the HTTP handler that serves them with every other component's
// functions (AddFunctions), behind the interceptors (authentication, the call rate limit and
// the API keys' creation rate, ratelimit.go; the audit trail; tracing), the MCP endpoint for
// agents (agents.go), the metrics (AddMetrics) and the health paths (health.go).
//
// New reads the configuration keys, which the other components follow (Settings); Start
// builds the handler once every component has added its functions; Stop ends the WebSocket
// connections. It depends on the state store and the authenticator (Dependencies), never on
// another component; docs/architecture.md shows the order the service starts its components
// in. The framework's rate-limit interceptor is in package transport, which this package
// imports for it alone.
package console
