package cluster_test

import (
	"context"
	"database/sql"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/cluster"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// node is one node's lease on the work: running reports whether the work runs there.
type node struct {
	lease   *cluster.Lease
	running atomic.Bool
	starts  atomic.Int32
}

func newNode(url string) *node {
	n := &node{}
	n.lease = &cluster.Lease{Name: "test", Key: 42, Run: func(ctx context.Context) {
		n.starts.Add(1)
		n.running.Store(true)
		<-ctx.Done()
		n.running.Store(false)
	}}
	n.lease.Start(url)
	return n
}

func TestLeaseMovesWhenTheHolderStops(t *testing.T) {
	t.Parallel()
	pg := testenv.StartPostgres(t)
	url := pg.Database(t)
	a, b := newNode(url), newNode(url)
	defer b.lease.Close()
	testutil.Eventually(t, "one node runs the work", func() bool { return a.running.Load() || b.running.Load() })
	holder, other := a, b
	if b.running.Load() {
		holder, other = b, a
	}
	// A sleep, not a wait: the other node must still not run the work after more than one
	// of its retries, and no event marks a retry that did nothing.
	time.Sleep(1500 * time.Millisecond)
	if other.running.Load() {
		t.Fatal("both nodes run the work")
	}
	holder.lease.Close()
	if holder.running.Load() {
		t.Fatal("the work still runs after Close")
	}
	testutil.Eventually(t, "the other node takes the work over", other.running.Load)
	a.lease.Close()
}

func TestLeaseStopsWorkWhenItsConnectionIsLost(t *testing.T) {
	t.Parallel()
	pg := testenv.StartPostgres(t)
	url := pg.Database(t)
	n := newNode(url)
	defer n.lease.Close()
	testutil.Eventually(t, "the work runs", n.running.Load)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The server ends the session that holds the lock, as when the network or the server
	// fails: the work must stop, then start again once the lease is taken back.
	if _, err := db.Exec(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = 42`); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the work restarts under a new lease", func() bool { return n.starts.Load() == 2 && n.running.Load() })
}
