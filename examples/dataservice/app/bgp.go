package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"

	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// openBGP starts the BGP speaker (Config.BGP, -bgp), when set, before the inlet that looks
// routes up in it.
func (a *App) openBGP(ctx context.Context) error {
	if a.cfg.BGP.Listen == "" {
		return nil
	}
	s, err := bgp.New(a.cfg.BGP, slog.New(zapHandler{a.log}))
	if err != nil {
		return fmt.Errorf("app: %w", err)
	}
	if err := s.Start(ctx); err != nil {
		return fmt.Errorf("app: %w", err)
	}
	a.bgp = s
	return nil
}

// BGP returns the BGP speaker, nil without -bgp.
func (a *App) BGP() *bgp.Speaker { return a.bgp }

// bgpStatus is the speaker's part of collector-status; nil without -bgp.
func (a *App) bgpStatus() []api.BGPPeer {
	if a.bgp == nil {
		return nil
	}
	st := a.bgp.Status()
	out := make([]api.BGPPeer, len(st))
	for i, p := range st {
		out[i] = api.BGPPeer{Address: p.Address.String(), AS: p.AS, State: p.State, Routes: p.Routes, Since: p.Since}
	}
	return out
}

// bgpMetrics adds the speaker's metrics to next's answer.
func (a *App) bgpMetrics(next http.Handler) http.Handler {
	if a.bgp == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		writeBGPMetrics(w, a.bgp)
	})
}

// writeBGPMetrics writes the speaker's figures in the Prometheus text format.
func writeBGPMetrics(w io.Writer, s *bgp.Speaker) {
	st := s.Status()
	states := map[string]int{"established": 0, "idle": 0, "connect": 0, "active": 0, "opensent": 0, "openconfirm": 0}
	fmt.Fprintf(w, "# HELP bgp_routes BGP: routes learned from a router.\n# TYPE bgp_routes gauge\n")
	for _, p := range st {
		if p.State == "refused" {
			continue
		}
		states[p.State]++
		fmt.Fprintf(w, "bgp_routes{router=%q} %d\n", p.Address.String(), p.Routes)
	}
	fmt.Fprintf(w, "# HELP bgp_peers BGP: routers by the state of their session.\n# TYPE bgp_peers gauge\n")
	names := make([]string, 0, len(states))
	for n := range states {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "bgp_peers{state=%q} %d\n", n, states[n])
	}
	fmt.Fprintf(w, "# HELP bgp_updates_total BGP: routes received, announced or withdrawn.\n# TYPE bgp_updates_total counter\nbgp_updates_total %d\n", s.Updates())
	fmt.Fprintf(w, "# HELP bgp_refused_total BGP: connections refused for coming from outside -bgp-peers.\n# TYPE bgp_refused_total counter\nbgp_refused_total %d\n", s.Refused())
}

// zapHandler passes the speaker's log (log/slog, as GoBGP's) to the service's.
type zapHandler struct{ l *zap.Logger }

func zapLevel(l slog.Level) zapcore.Level {
	switch {
	case l >= slog.LevelError:
		return zapcore.ErrorLevel
	case l >= slog.LevelWarn:
		return zapcore.WarnLevel
	case l >= slog.LevelInfo:
		return zapcore.InfoLevel
	}
	return zapcore.DebugLevel
}

func (h zapHandler) Enabled(_ context.Context, l slog.Level) bool {
	return h.l.Core().Enabled(zapLevel(l))
}

func (h zapHandler) Handle(_ context.Context, r slog.Record) error {
	if ce := h.l.Check(zapLevel(r.Level), r.Message); ce != nil {
		fields := make([]zap.Field, 0, r.NumAttrs())
		r.Attrs(func(a slog.Attr) bool {
			fields = append(fields, zap.Any(a.Key, a.Value.Any()))
			return true
		})
		ce.Write(fields...)
	}
	return nil
}

func (h zapHandler) WithAttrs(as []slog.Attr) slog.Handler {
	fields := make([]zap.Field, len(as))
	for i, a := range as {
		fields[i] = zap.Any(a.Key, a.Value.Any())
	}
	return zapHandler{h.l.With(fields...)}
}

func (h zapHandler) WithGroup(name string) slog.Handler { return zapHandler{h.l.Named(name)} }
