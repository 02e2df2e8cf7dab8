package cluster

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"go.uber.org/zap"
)

// retry is how long the connections of this package wait before trying again after a failure.
const retry = time.Second

// Listener receives PostgreSQL notifications on a connection of its own and hands each to the
// handler of its channel, in the order of the commits that sent them. When the connection is
// lost it connects again, and then calls Resync: notifications sent meanwhile are lost, so
// whatever they would have refreshed must be refreshed in full. It is safe for concurrent use.
// Close it when done.
type Listener struct {
	// Handlers are called with the payload of each notification on their channel, one at a
	// time, on the listener's goroutine: they must be quick.
	Handlers map[string]func(payload string)
	// Resync is called after every connection (the first one too), once the channels are
	// listened to.
	Resync func()
	// Logger receives connection failures. Default: none.
	Logger *zap.Logger

	url       string
	connected atomic.Bool
	stop      context.CancelFunc
	wg        sync.WaitGroup
}

// Listen starts l on the database at url and returns at once; l's fields must be set before.
func (l *Listener) Listen(url string) {
	if l.Logger == nil {
		l.Logger = zap.NewNop()
	}
	l.url = url
	ctx, stop := context.WithCancel(context.Background())
	l.stop = stop
	l.wg.Go(func() {
		for ctx.Err() == nil {
			err := l.session(ctx)
			l.connected.Store(false)
			if ctx.Err() == nil {
				l.Logger.Warn("cluster: notifications lost; connecting again", zap.Error(err))
				sleep(ctx, retry)
			}
		}
	})
}

// Connected reports whether the listener is connected: changes made by other nodes reach this
// one at once.
func (l *Listener) Connected() bool { return l.connected.Load() }

// Close stops listening and closes the connection.
func (l *Listener) Close() {
	if l.stop != nil {
		l.stop()
	}
	l.wg.Wait()
}

// session listens on one connection until it fails or ctx is done.
func (l *Listener) session(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	conn, err := pgx.Connect(cctx, l.url)
	cancel()
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for ch := range l.Handlers {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return err
		}
	}
	l.connected.Store(true)
	if l.Resync != nil {
		l.Resync()
	}
	for {
		// Wake up every few seconds to check the connection: a server that vanished without
		// closing it would otherwise leave the listener waiting for ever.
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && pgconn.Timeout(err):
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return err
			}
		case err != nil:
			return err
		case n != nil:
			if h := l.Handlers[n.Channel]; h != nil {
				h(n.Payload)
			}
		}
	}
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
