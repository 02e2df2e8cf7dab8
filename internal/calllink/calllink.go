// Package calllink lets the transport reach what registry.Call keeps out of its API: marking a
// call as a probe, and reading the log fields interceptors added. Package registry fills it in
// when it is initialised.
package calllink

import "go.uber.org/zap"

var (
	// MarkProbe marks c, a *registry.Call, as a probe (see registry.Call.Probe).
	MarkProbe func(c any)
	// LogFields returns the fields interceptors added to the log line of c, a *registry.Call.
	LogFields func(c any) []zap.Field
)
