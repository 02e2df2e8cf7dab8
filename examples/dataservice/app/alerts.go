package app

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
	"github.com/fnapi/fnapi/registry"
)

// AlertsConfig is the alerts' part of Config (package alerts). The zero value sends webhooks to
// public addresses only and no e-mail.
type AlertsConfig struct {
	// WebhookAllow lists the prefixes webhooks may reach besides public addresses
	// (-webhook-allow).
	WebhookAllow []netip.Prefix
	// WebhookRoots verifies webhook receivers' certificates. Default: the system's roots.
	WebhookRoots *x509.CertPool
	// Listen lists the service's own listening addresses (-addr, -metrics): webhooks never
	// reach them, whatever WebhookAllow holds.
	Listen []netip.AddrPort
	// SMTP is where e-mail notifications go (-smtp). Default: none.
	SMTP *alerts.SMTP
	// Backoff is the wait after a first failed notification. Default: 5 s.
	Backoff time.Duration
}

// alertsKey is the advisory lock of the alerts' lease.
const alertsKey = 0x66_6e_61_70_69_03

// registerAlerts opens the alert tables in the state store and registers the alert functions
// (API 1.3).
func (a *App) registerAlerts(reg *registry.Registry) error {
	var db *statedb.SQLite
	switch st := a.state.(type) {
	case *statedb.SQLite:
		db = st
	case *statedb.Postgres:
		db = st.SQLite
	default:
		return errors.New("app: alerts: the state store keeps no alert tables")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := statedb.OpenAlerts(ctx, db)
	if err != nil {
		return fmt.Errorf("app: %w", err)
	}
	c := a.cfg.Alerts
	// Each owner's rules are answered by the engine of their standing queries (package query).
	engine := func(ctx context.Context) *pvql.Engine { return a.query.Rules(alerts.Owner(ctx)) }
	var live func(context.Context, string) (alerts.Standing, error)
	if cr, ok := a.records.(records.ChangeReporter); ok {
		// As for followed queries: only where the store reports every change (DuckDB).
		changes := cr.Changes()
		live = func(ctx context.Context, expr string) (alerts.Standing, error) {
			l, err := engine(ctx).Live(expr, changes)
			if err != nil {
				return nil, err
			}
			return standing{l, a.settings.DefaultPeriod}, nil
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
		res, err := engine(ctx).AnswerEach(ctx, sts, now, a.settings.DefaultPeriod())
		return res, wire.QueryError(err)
	}
	a.alerts, err = alerts.New(st, alerts.Options{Live: live, Each: each,
		Query: func(ctx context.Context, expr string, now time.Time) ([]pvql.Result, error) {
			res, err := engine(ctx).Query(ctx, expr, now, a.settings.DefaultPeriod())
			return res, wire.QueryError(err)
		},
		WebhookAllow: c.WebhookAllow, Listen: c.Listen, WebhookRoots: c.WebhookRoots, SMTP: c.SMTP, Backoff: c.Backoff, Logger: a.log,
	})
	if err != nil {
		return fmt.Errorf("app: %w", err)
	}
	return a.alerts.Register(reg)
}

// standing is a live answer of pvql as package alerts wants it.
type standing struct {
	*pvql.Live
	period func() time.Duration
}

func (s standing) Answer(ctx context.Context, now time.Time) ([]pvql.Result, error) {
	res, err := s.Live.Answer(ctx, now, s.period())
	return res, wire.QueryError(err)
}

// evaluateAlerts evaluates the alert rules and sends their notifications until ctx is done:
// background work, on one node at a time with several nodes.
func (a *App) evaluateAlerts(ctx context.Context) {
	a.alertsOn.Store(true)
	defer a.alertsOn.Store(false)
	a.alerts.NewEvaluator().Run(ctx)
}
