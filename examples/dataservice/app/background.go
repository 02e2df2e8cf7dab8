package app

import (
	"context"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/cluster"
	"github.com/fnapi/fnapi/examples/dataservice/demo"
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

// background lists the background work of the service. With several nodes (Config.Postgres),
// work on what the nodes share runs on one node at a time, under a lease: the demo generator
// (it creates the overview dashboard and feeds the records) and, when the records' engine is
// shared (ClickHouse), retention, and the alert rules' evaluation and notifications (package
// alerts). Retention of a node's own DuckDB runs on every node.
func (a *App) background() []work {
	several := a.cfg.Postgres != ""
	ws := []work{{name: "retention", key: 0x66_6e_61_70_69_01, leased: several && a.engineOf.Shared, run: a.retain},
		{name: "alerts", key: alertsKey, leased: several, run: a.evaluateAlerts}}
	if a.cfg.Demo {
		ws = append(ws, work{name: "demo traffic", key: 0x66_6e_61_70_69_02, leased: several, run: a.demo})
	}
	ws = append(ws, a.contextWork()...)
	ws = append(ws, a.queueWork()...)
	return append(ws, a.captureWork()...)
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

// demo generates synthetic traffic until ctx is done, after creating, on a first start of a
// service of several nodes, the overview dashboard and the demo's context, dashboard and alert
// rules (ensureDemo: a single node makes them in Open), so that the backfill has its zones.
func (a *App) demo(ctx context.Context) {
	if a.cfg.Postgres != "" {
		if err := a.ensureOverview(ctx); err != nil {
			a.log.Error("demo overview dashboard", zap.Error(err))
		}
		if err := a.ensureDemo(ctx); err != nil {
			a.log.Error("demo", zap.Error(err))
		}
	}
	opts := demo.Options{Backfill: a.demoBackfill(ctx)}
	if err := demo.Run(ctx, a.ingest.Ingest, opts); err != nil && ctx.Err() == nil {
		a.log.Error("demo traffic stopped", zap.Error(err))
	}
}

// demoBackfill returns how much past traffic the demo generates at start: the last 24 hours on a
// first start, and on a restart only the time since the newest record, so that a restart never
// doubles the data.
func (a *App) demoBackfill(ctx context.Context) time.Duration {
	const day = 24 * time.Hour
	newest, ok, err := a.records.Newest(ctx)
	if err != nil || !ok {
		return day
	}
	gap := time.Since(time.Unix(newest, 0))
	switch {
	case gap <= 0:
		return -1 // nothing to fill; a negative Backfill means none
	case gap > day:
		return day
	}
	return gap
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
