package queue_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/queue"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/clickhouse"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
	"github.com/fnapi/fnapi/internal/testutil"
)

// openClickHouse opens the records store on a ClickHouse server the test started.
func openClickHouse(t testing.TB, srv *testenv.ClickHouseServer) *clickhouse.Store {
	t.Helper()
	s, err := clickhouse.Open(context.Background(), srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestNATSClusterNodeKilled publishes through a cluster of three NATS servers (stream replicas
// 3) while one of them is killed: every record published is stored once.
func TestNATSClusterNodeKilled(t *testing.T) {
	t.Parallel()
	srvs := testenv.NATSCluster(t, 3)
	urls := srvs[0].URL + "," + srvs[1].URL + "," + srvs[2].URL
	pub, sub := open(t, urls, false), open(t, urls, true)
	store := openDuckDB(t)
	consume(t, sub, store)
	publish(t, pub, 2, 20, 100, 1_700_000_000)
	srvs[0].Stop()
	publish(t, pub, 2, 20, 100, 1_700_001_000)
	waitStored(t, sub, store, 2*2*20*100)
}

// TestConsumerDiesOtherTakesOver shares the stream between two consuming nodes storing into
// one ClickHouse server; one dies mid-stream (its connection closed while it holds batches
// not acknowledged): the other stores them once AckWait passed, and every record is stored
// once. AckWait must exceed the time the server takes to finish an insert its client
// abandoned (seconds on a loaded test machine; the default is 10 s).
func TestConsumerDiesOtherTakesOver(t *testing.T) {
	t.Parallel()
	nats := testenv.NATS(t)
	store := openClickHouse(t, testenv.ClickHouse(t))
	pub := open(t, nats.URL, false)
	cfg := queue.Config{URLs: nats.URL, Consume: true, AckWait: 10 * time.Second, Log: zaptest.NewLogger(t)}
	cfg.Log = cfg.Log.Named("a")
	a, err := queue.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Log = zaptest.NewLogger(t).Named("b")
	b, err := queue.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	doneA := a.Consume(ctx, store)
	consume(t, b, store)
	// A batch at a time until the first node stored one (the other may gather several).
	sent := 0
	testutil.Eventually(t, "the first node storing", func() bool {
		publish(t, pub, 1, 1, 1000, 1_700_000_000+int64(sent))
		sent++
		return a.Status(context.Background(), time.Now()).Stored > 0
	})
	a.Close()
	cancel()
	<-doneA
	publish(t, pub, 1, 6, 1000, 1_700_001_000)
	waitStored(t, b, store, int64(sent+6)*1000)
}

// TestClickHouseDown kills the ClickHouse server the consumer stores into during a steady
// stream, and starts it again: the batches wait in the stream, and every record is stored
// once.
func TestClickHouseDown(t *testing.T) {
	t.Parallel()
	nats := testenv.NATS(t)
	ch := testenv.ClickHouse(t)
	store := openClickHouse(t, ch)
	pub, sub := open(t, nats.URL, false), open(t, nats.URL, true)
	consume(t, sub, store)
	var sent atomic.Int64
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		tick := time.NewTicker(250 * time.Millisecond) // 2,000 records/s
		defer tick.Stop()
		for i := int64(0); ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			case <-tick.C:
			}
			if err := pub.Ingest(context.Background(), recordstest.Batch(500, 1_700_000_000+i)); err != nil {
				done <- err
				return
			}
			sent.Add(500)
		}
	}()
	testutil.Eventually(t, "records stored", func() bool { return recordstest.Count(t, store) > 0 })
	ch.Stop()
	testutil.Eventually(t, "batches waiting", func() bool { return sub.Status(context.Background(), time.Now()).Pending > 5 })
	before := sub.Status(context.Background(), time.Now()).Stored
	ch.Start()
	testutil.Eventually(t, "records stored after the restart", func() bool {
		return sub.Status(context.Background(), time.Now()).Stored > before
	})
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitStored(t, sub, store, sent.Load())
}

// rowsOnly is a ClickHouse store that, on the first delivery of every third batch, stores its
// rows without its id and answers that it is unavailable: ClickHouse stored the batch, and
// the consuming node died (or the id's insert failed) before the acknowledgement.
type rowsOnly struct {
	*clickhouse.Store
	n atomic.Int64
}

func (r *rowsOnly) IngestBatch(ctx context.Context, b records.Batch) error {
	if !b.Again && r.n.Add(1)%3 == 0 {
		if err := r.Store.Ingest(ctx, b.Records); err != nil {
			return err
		}
		return fmt.Errorf("stored, not acknowledged: %w", records.ErrUnavailable)
	}
	return r.Store.IngestBatch(ctx, b)
}

// TestClickHouseRedelivered checks exactly-once on ClickHouse for a batch delivered again
// after ClickHouse stored it but before the acknowledgement: with its id stored (the answer
// lost) and without it (rows alone), every record is stored once and the redeliveries counted.
func TestClickHouseRedelivered(t *testing.T) {
	t.Parallel()
	nats := testenv.NATS(t)
	store := openClickHouse(t, testenv.ClickHouse(t))
	pub, sub := open(t, nats.URL, false), open(t, nats.URL, true)
	ctx, cancel := context.WithCancel(context.Background())
	done := sub.Consume(ctx, &flaky{BatchStore: &rowsOnly{Store: store}})
	t.Cleanup(func() {
		cancel()
		<-done
	})
	publish(t, pub, 2, 15, 200, 1_700_000_000)
	waitStored(t, sub, store, 2*15*200)
	if st := sub.Status(context.Background(), time.Now()); st.Redelivered < 15 {
		t.Errorf("status %+v: want at least 15 batches redelivered", st)
	}
}

// lossyGather is a ClickHouse store whose gathered writes fail after storing: of every three
// gathered writes of first deliveries, one stores the rows without their ids and one stores
// whole but its answer is lost. It counts the writes and their batches.
type lossyGather struct {
	*clickhouse.Store
	gathered
}

func (l *lossyGather) IngestBatches(ctx context.Context, bs []records.Batch) error {
	l.count(bs)
	if slices.ContainsFunc(bs, func(b records.Batch) bool { return b.Again }) {
		return l.Store.IngestBatches(ctx, bs)
	}
	switch l.n.Add(1) % 3 {
	case 1:
		var recs []records.Record
		for _, b := range bs {
			recs = append(recs, b.Records...)
		}
		if err := l.Store.Ingest(ctx, recs); err != nil {
			return err
		}
		return fmt.Errorf("rows stored, ids not: %w", records.ErrUnavailable)
	case 2:
		if err := l.Store.IngestBatches(ctx, bs); err != nil {
			return err
		}
		return fmt.Errorf("answer lost: %w", records.ErrUnavailable)
	}
	return l.Store.IngestBatches(ctx, bs)
}

// TestClickHouseGatheredRedelivered checks exactly-once on ClickHouse for batches the consumer
// gathered into one write, delivered again (and gathered otherwise) after ClickHouse stored
// them but before the acknowledgement, with their ids stored or without: every record is
// stored once, in fewer writes than batches.
func TestClickHouseGatheredRedelivered(t *testing.T) {
	t.Parallel()
	store := openClickHouse(t, testenv.ClickHouse(t))
	checkGatheredRedelivered(t, store, &lossyGather{Store: store})
}
