package app

import (
	"context"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/cluster"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"go.uber.org/zap"
)

// retentionKey is the advisory lock of retention's lease.
const retentionKey = 0x66_6e_61_70_69_01

// start runs retention until Close, the service's background work besides the components'
// (the inlet's and the alerts' run their own). With several nodes (Config.Postgres) and a
// shared records engine (ClickHouse), it runs on one node at a time, under a lease; retention
// of a node's own DuckDB runs on every node.
func (a *App) start() {
	if a.cfg.Postgres != "" && a.engineOf.Shared {
		a.lease = &cluster.Lease{Name: "retention", Key: retentionKey, Run: a.retain, Logger: a.log}
		a.lease.Start(a.cfg.Postgres)
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	a.stop = stop
	a.wg.Go(func() { a.retain(ctx) })
}

// retain deletes the records older than the retention period: at start, every ten minutes, and
// whenever the configuration changes.
func (a *App) retain(ctx context.Context) {
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		n, err := records.Retain(ctx, a.store, a.console.Settings().Retention(), time.Now())
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
