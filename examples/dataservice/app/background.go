package app

import (
	"context"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/cluster"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"go.uber.org/zap"
)

// work is one piece of background work.
type work struct {
	name string
	// key is the advisory lock of its lease, when it runs on one node at a time.
	key int64
	// leased reports whether it runs on one node at a time: work on what the nodes share.
	leased bool
	run    func(ctx context.Context)
}

// background lists the background work of the service besides the inlet's (which runs its
// own: package inlet). With several nodes (Config.Postgres), work on what the nodes share runs
// on one node at a time, under a lease: when the records' engine is shared (ClickHouse),
// retention, and the alert rules' evaluation and notifications (package alerts). Retention of
// a node's own DuckDB runs on every node.
func (a *App) background() []work {
	several := a.cfg.Postgres != ""
	ws := []work{{name: "retention", key: 0x66_6e_61_70_69_01, leased: several && a.engineOf.Shared, run: a.retain},
		{name: "alerts", key: alertsKey, leased: several, run: a.evaluateAlerts}}
	return ws
}

// start runs the background work until Close: leased work under its lease, the rest here.
func (a *App) start() {
	ctx, stop := context.WithCancel(context.Background())
	a.stop = stop
	for _, w := range a.background() {
		if w.leased {
			l := &cluster.Lease{Name: w.name, Key: w.key, Run: w.run, Logger: a.log}
			l.Start(a.cfg.Postgres)
			a.leases = append(a.leases, l)
			continue
		}
		a.wg.Go(func() { w.run(ctx) })
	}
}

// retain deletes the records older than the retention period: at start, every ten minutes, and
// whenever the configuration changes.
func (a *App) retain(ctx context.Context) {
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		n, err := records.Retain(ctx, a.store, a.settings.Retention(), time.Now())
		switch {
		case err != nil && ctx.Err() == nil:
			a.log.Error("retention", zap.Error(err))
		case n > 0:
			a.log.Info("retention deleted old records", zap.Int64("records", n))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-a.retainNow:
		}
	}
}
