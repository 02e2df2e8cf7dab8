package queue_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap/zaptest"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/queue"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
	"github.com/fnapi/fnapi/internal/testutil"
)

// open opens a queue on urls, closed with the test.
func open(t testing.TB, urls string, consume bool) *queue.Queue {
	t.Helper()
	q, err := queue.Open(context.Background(), queue.Config{URLs: urls, Consume: consume, Log: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

// openDuckDB opens a DuckDB store in a temporary directory, closed with the test.
// DuckDB's cost of a write is mostly by commit: the consumer gathers its batches.
var _ queue.Gatherer = (*duckdb.Store)(nil)

func openDuckDB(t testing.TB) *duckdb.Store {
	t.Helper()
	s, err := duckdb.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// consume runs q's consumer into store until the test ends.
func consume(t testing.TB, q *queue.Queue, store records.BatchStore) {
	ctx, cancel := context.WithCancel(context.Background())
	done := q.Consume(ctx, store)
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// publish publishes batches batches of size records from each of senders goroutines, each
// batch at its own time from at, and fails t on an error. A batch may wait a minute for its
// acknowledgement, not queue.PublishTimeout: a NATS cluster elects a stream's new leader in a
// few seconds, but in more than ten on a loaded test machine.
func publish(t testing.TB, q *queue.Queue, senders, batches, size int, at int64) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for s := range senders {
		wg.Go(func() {
			for b := range batches {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				err := q.Ingest(ctx, recordstest.Batch(size, at+int64(s*batches+b)))
				cancel()
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// waitStored waits until store holds want records and the stream has none pending, as long
// as each Eventually's wait sees progress (a loaded ClickHouse takes seconds a batch).
func waitStored(t testing.TB, q *queue.Queue, store records.Reader, want int64) {
	t.Helper()
	var n int64
	var st queue.Status
	defer func() {
		if t.Failed() {
			t.Logf("last seen: %d records stored, status %+v", n, st)
		}
	}()
	for done := false; !done; {
		last := n
		testutil.Eventually(t, fmt.Sprintf("%d records stored (progress from %d)", want, last), func() bool {
			n, st = recordstest.Count(t, store), q.Status(context.Background(), time.Now())
			done = n >= want && st.Pending == 0
			return done || n > last
		})
	}
	if n := recordstest.Count(t, store); n != want {
		t.Fatalf("%d records stored, want %d", n, want)
	}
}

// TestRoundTrip publishes from four senders through one NATS server into a DuckDB store: every
// record is stored once, and the status counts them.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	srv := testenv.NATS(t)
	pub, sub := open(t, srv.URL, false), open(t, srv.URL, true)
	store := openDuckDB(t)
	consume(t, sub, store)
	publish(t, pub, 4, 25, 400, 1_700_000_000)
	waitStored(t, sub, store, 4*25*400)
	st := pub.Status(context.Background(), time.Now())
	if st.Published != 40_000 || st.Error != "" || st.DeadLetters != 0 || st.OldestAge != 0 {
		t.Errorf("publisher's status %+v, want 40000 published, none pending or dead", st)
	}
	if st := sub.Status(context.Background(), time.Now()); st.Stored != 40_000 {
		t.Errorf("consumer's status %+v, want 40000 stored", st)
	}
}

// flaky is a store that stores the first delivery of every third batch but answers that it
// is unavailable, as a store whose answer was lost (a time-out, a crash before the ack).
type flaky struct {
	records.BatchStore
	n atomic.Int64
}

func (f *flaky) IngestBatch(ctx context.Context, b records.Batch) error {
	err := f.BatchStore.IngestBatch(ctx, b)
	if err == nil && !b.Again && f.n.Add(1)%3 == 0 {
		return fmt.Errorf("answer lost: %w", records.ErrUnavailable)
	}
	return err
}

// TestRedeliveredStoredOnce checks exactly-once when a store's answer is lost: the batches
// JetStream delivers again are stored once, and counted as redelivered.
func TestRedeliveredStoredOnce(t *testing.T) {
	t.Parallel()
	srv := testenv.NATS(t)
	pub, sub := open(t, srv.URL, false), open(t, srv.URL, true)
	store := openDuckDB(t)
	consume(t, sub, &flaky{BatchStore: store})
	publish(t, pub, 2, 30, 100, 1_700_000_000)
	waitStored(t, sub, store, 2*30*100)
	if st := sub.Status(context.Background(), time.Now()); st.Redelivered < 20 {
		t.Errorf("status %+v: want at least 20 batches redelivered", st)
	}
}

// TestPublisherRetryDeduplicated checks that a message published again under its
// Nats-Msg-Id (a publisher's retry) is stored once.
func TestPublisherRetryDeduplicated(t *testing.T) {
	t.Parallel()
	srv := testenv.NATS(t)
	sub := open(t, srv.URL, true)
	store := openDuckDB(t)
	consume(t, sub, store)
	js := jetStream(t, srv.URL)
	data := queue.Encode(nil, recordstest.Batch(50, 1_700_000_000))
	for range 3 {
		if _, err := js.Publish(context.Background(), queue.Subject, data, jetstream.WithMsgID("retried-batch")); err != nil {
			t.Fatal(err)
		}
	}
	waitStored(t, sub, store, 50)
}

// jetStream connects a plain JetStream client to url, closed with the test.
func jetStream(t testing.TB, url string) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestPoisonBatchDeadLettered publishes a batch the store refuses for its content (a record
// without application) and bytes that do not decode between good batches: both go to the
// dead-letter subject with their reason, counted, and the rest is stored.
func TestPoisonBatchDeadLettered(t *testing.T) {
	t.Parallel()
	srv := testenv.NATS(t)
	pub, sub := open(t, srv.URL, false), open(t, srv.URL, true)
	store := openDuckDB(t)
	consume(t, sub, store)
	js := jetStream(t, srv.URL)
	poison := recordstest.Batch(10, 1_700_000_000)
	poison[4].Application = ""
	publish(t, pub, 1, 5, 100, 1_700_000_000)
	bad := [][]byte{queue.Encode(nil, poison), []byte("not a batch")}
	for _, data := range bad {
		if _, err := js.Publish(context.Background(), queue.Subject, data); err != nil {
			t.Fatal(err)
		}
	}
	publish(t, pub, 1, 5, 100, 1_700_001_000)
	waitStored(t, sub, store, 1000)
	testutil.Eventually(t, "two dead letters", func() bool {
		return sub.Status(context.Background(), time.Now()).DeadLetters == 2
	})
	s, err := js.Stream(context.Background(), queue.Stream)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetLastMsgForSubject(context.Background(), queue.DeadSubject)
	if err != nil {
		t.Fatal(err)
	}
	if why := m.Header.Get("Svc-Error"); why == "" || !bytes.Equal(m.Data, bad[0]) && !bytes.Equal(m.Data, bad[1]) {
		t.Errorf("dead letter %q with Svc-Error %q; want a refused batch's bytes and why", m.Data, why)
	}
}

// TestNATSDown starts a publisher while NATS is down: it is not ready and says why naming the
// queue, Ingest fails as unavailable at once, and once NATS is up it becomes ready and
// publishes. A consumer cannot start while NATS is down.
func TestNATSDown(t *testing.T) {
	t.Parallel()
	srv := testenv.NATS(t)
	srv.Stop()
	if _, err := queue.Open(context.Background(), queue.Config{URLs: srv.URL, Consume: true}); err == nil {
		t.Fatal("a consumer opened while NATS is down")
	}
	pub := open(t, srv.URL, false)
	if err := pub.Ready(); err == nil {
		t.Fatal("ready while NATS is down")
	}
	if err := pub.Ingest(context.Background(), recordstest.Batch(5, 1_700_000_000)); !errors.Is(err, records.ErrUnavailable) {
		t.Fatalf("Ingest while NATS is down: %v, want ErrUnavailable", err)
	}
	srv.Start()
	testutil.Eventually(t, "the publisher ready", func() bool { return pub.Ready() == nil })
	if err := pub.Ingest(context.Background(), recordstest.Batch(5, 1_700_000_000)); err != nil {
		t.Fatal(err)
	}
}

// TestMaxInFlight checks the bound on the bytes waiting for acknowledgements: a batch of
// exactly MaxInFlight bytes is published, one byte more fails at once as unavailable.
func TestMaxInFlight(t *testing.T) {
	t.Parallel()
	srv := testenv.NATS(t)
	recs := recordstest.Batch(100, 1_700_000_000)
	size := int64(len(queue.Encode(nil, recs)))
	for _, tc := range []struct {
		max int64
		ok  bool
	}{{size, true}, {size - 1, false}} {
		q, err := queue.Open(context.Background(), queue.Config{URLs: srv.URL, MaxInFlight: tc.max})
		if err != nil {
			t.Fatal(err)
		}
		testutil.Eventually(t, "the queue ready", func() bool { return q.Ready() == nil })
		err = q.Ingest(context.Background(), recs)
		if tc.ok && err != nil || !tc.ok && !errors.Is(err, records.ErrUnavailable) {
			t.Errorf("MaxInFlight %d, a batch of %d bytes: %v", tc.max, size, err)
		}
		q.Close()
	}
}

// gathering is a store that takes gathered writes (queue.Gatherer) as IngestBatch of each of
// their batches, and keeps their sizes.
type gathering struct {
	records.BatchStore
	mu     sync.Mutex
	writes []int // the records of each write
}

func (g *gathering) IngestBatches(ctx context.Context, bs []records.Batch) error {
	n := 0
	for _, b := range bs {
		if err := g.BatchStore.IngestBatch(ctx, b); err != nil {
			return err
		}
		n += len(b.Records)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.writes = append(g.writes, n)
	return nil
}

// TestGatheredWritesBounded publishes 40 batches of 7,000 records before a consumer starts, into
// a store that takes gathered writes: the consumer stores them in fewer writes than batches,
// none of more than queue.GatherRecords records, every record once.
func TestGatheredWritesBounded(t *testing.T) {
	t.Parallel()
	srv := testenv.NATS(t)
	pub, sub := open(t, srv.URL, false), open(t, srv.URL, true)
	publish(t, pub, 4, 10, 7000, 1_700_000_000)
	duck := openDuckDB(t)
	store := &gathering{BatchStore: duck}
	consume(t, sub, store)
	waitStored(t, sub, duck, 40*7000)
	store.mu.Lock()
	defer store.mu.Unlock()
	if len(store.writes) == 0 || len(store.writes) >= 40 || slices.Max(store.writes) > queue.GatherRecords || slices.Max(store.writes) < 2*7000 {
		t.Errorf("writes of %v records: want fewer than 40, some of several batches, none above %d", store.writes, queue.GatherRecords)
	}
}

// lossyDuck is a DuckDB store one of whose gathered writes of first deliveries in three,
// the first among them (a fast consumer may gather every batch in one write), stores whole
// but has its answer lost. It counts the writes and their batches.
type lossyDuck struct {
	*duckdb.Store
	gathered
}

func (l *lossyDuck) IngestBatches(ctx context.Context, bs []records.Batch) error {
	l.count(bs)
	err := l.Store.IngestBatches(ctx, bs)
	if err == nil && !slices.ContainsFunc(bs, func(b records.Batch) bool { return b.Again }) && l.n.Add(1)%3 == 1 {
		return fmt.Errorf("answer lost: %w", records.ErrUnavailable)
	}
	return err
}

// TestDuckDBGatheredRedelivered checks exactly-once on DuckDB for batches the consumer
// gathered into one write (one commit), delivered again, and gathered otherwise, after DuckDB
// stored them but before the acknowledgement: every record is stored once, in fewer writes
// than batches.
func TestDuckDBGatheredRedelivered(t *testing.T) {
	t.Parallel()
	store := openDuckDB(t)
	checkGatheredRedelivered(t, store, &lossyDuck{Store: store})
}

// gathered counts a lossy store's gathered writes and the batches in them; n numbers its
// first deliveries, for the store to choose which to lose.
type gathered struct{ n, writes, batches atomic.Int64 }

func (g *gathered) count(bs []records.Batch) {
	g.writes.Add(1)
	g.batches.Add(int64(len(bs)))
}

func (g *gathered) counts() *gathered { return g }

// checkGatheredRedelivered publishes 18,000 records in 60 batches and consumes them into
// lossy, a wrapper of store that loses some gathered writes' answers: every record is stored
// once, batches are delivered again, and a write gathers several.
func checkGatheredRedelivered(t *testing.T, store records.Reader, lossy interface {
	records.BatchStore
	counts() *gathered
}) {
	srv := testenv.NATS(t)
	pub, sub := open(t, srv.URL, false), open(t, srv.URL, true)
	publish(t, pub, 3, 20, 300, 1_700_000_000)
	consume(t, sub, lossy)
	waitStored(t, sub, store, 3*20*300)
	if st := sub.Status(context.Background(), time.Now()); st.Redelivered < 10 {
		t.Errorf("status %+v: want at least 10 batches redelivered", st)
	}
	if w, b := lossy.counts().writes.Load(), lossy.counts().batches.Load(); w == 0 || w >= b {
		t.Errorf("%d gathered writes of %d batches: want several batches a write", w, b)
	}
}
