package cluster

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
)

// Lease runs a piece of background work on one node of the service at a time. Every node runs
// the same Lease; the one that holds a PostgreSQL session-level advisory lock runs the work.
// The lock belongs to a connection of the lease's own, so it is released when that node stops,
// dies or loses the database: the server ends the session, and another node, trying every
// second, takes the lease over and starts the work.
//
// The holder checks its connection every second and stops the work when it fails; a server
// restart releases every lock at once, so for up to that second two nodes may run the work
// together. Work given a Lease must tolerate that (retention deletes what is already deleted;
// the demo generator adds a second of extra traffic).
type Lease struct {
	// Name names the work in the log.
	Name string
	// Key is the advisory lock's key, one per kind of work.
	Key int64
	// Run does the work until ctx is done; the lease is released when it returns, and taken
	// again (by any node) a second later.
	Run func(ctx context.Context)
	// Logger receives when the lease is taken and released. Default: none.
	Logger *zap.Logger

	stop context.CancelFunc
	wg   sync.WaitGroup
}

// Start begins competing for the lease on the database at url and returns at once.
func (l *Lease) Start(url string) {
	if l.Logger == nil {
		l.Logger = zap.NewNop()
	}
	ctx, stop := context.WithCancel(context.Background())
	l.stop = stop
	l.wg.Go(func() {
		var conn *pgx.Conn
		defer func() {
			if conn != nil {
				conn.Close(context.Background())
			}
		}()
		for ctx.Err() == nil {
			if conn == nil || conn.IsClosed() {
				cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				c, err := pgx.Connect(cctx, url)
				cancel()
				if err != nil {
					sleep(ctx, retry)
					continue
				}
				conn = c
			}
			var held bool
			qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := conn.QueryRow(qctx, "SELECT pg_try_advisory_lock($1)", l.Key).Scan(&held)
			cancel()
			if err == nil && held {
				l.hold(ctx, conn)
				conn.Close(context.Background()) // releases the lock, if the server still has it
				conn = nil
			}
			sleep(ctx, retry)
		}
	})
}

// hold runs the work while the connection that holds the lock answers.
func (l *Lease) hold(ctx context.Context, conn *pgx.Conn) {
	l.Logger.Info("cluster: lease taken; running the work here", zap.String("work", l.Name))
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.Run(wctx)
	}()
	t := time.NewTicker(retry)
	defer t.Stop()
	for {
		select {
		case <-done:
			cancel()
			l.Logger.Info("cluster: work ended; lease released", zap.String("work", l.Name))
			return
		case <-t.C:
			pctx, pcancel := context.WithTimeout(ctx, retry)
			err := conn.Ping(pctx)
			pcancel()
			if err == nil || ctx.Err() != nil {
				continue
			}
			l.Logger.Warn("cluster: lease lost with the database connection; stopping the work",
				zap.String("work", l.Name), zap.Error(err))
		case <-ctx.Done():
		}
		cancel()
		<-done
		return
	}
}

// Close stops the work, when this node runs it, and releases the lease.
func (l *Lease) Close() {
	if l.stop != nil {
		l.stop()
	}
	l.wg.Wait()
}
