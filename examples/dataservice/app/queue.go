package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/queue"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// queued is the records store of a node with -queue (inlet.Configuration.Queue): Ingest publishes to the
// stream (package queue), reads go to the store.
type queued struct {
	records.Store
	q *queue.Queue
}

// Ingest publishes recs and returns once JetStream acknowledged them.
func (s queued) Ingest(ctx context.Context, recs []records.Record) error {
	return s.q.Ingest(ctx, recs)
}

// openQueue connects to the inlet's Queue, when set; with Consume it fails when NATS cannot
// be reached, or the records store cannot store a batch once.
func (a *App) openQueue(ctx context.Context) error {
	if a.cfg.Inlet.Queue == "" {
		return nil
	}
	if _, ok := a.records.(records.BatchStore); a.cfg.Inlet.Consume && !ok {
		return fmt.Errorf("app: -consume: the %s records store cannot store a batch once", a.engineOf.Name)
	}
	q, err := queue.Open(ctx, queue.Config{URLs: a.cfg.Inlet.Queue, Consume: a.cfg.Inlet.Consume, MaxBytes: a.cfg.Inlet.QueueMaxBytes, Log: a.log})
	if err != nil {
		return fmt.Errorf("app: %w", err)
	}
	a.queue = q
	return nil
}

// viaQueue returns s, publishing its Ingest calls when the node has a queue.
func (a *App) viaQueue(s records.Store) records.Store {
	if a.queue == nil {
		return s
	}
	return queued{Store: s, q: a.queue}
}

// consumer is the queue's consumer on a node with -consume.
type consumer struct {
	cancel context.CancelFunc
	done   <-chan struct{}
}

// startConsumer stores the stream's batches until Close (-consume).
func (a *App) startConsumer() {
	if a.queue == nil || !a.cfg.Inlet.Consume {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	a.consumer = consumer{cancel: cancel, done: a.queue.Consume(ctx, a.records.(records.BatchStore))}
}

// stop ends the consumer, once the batch it stores is stored and acknowledged.
func (c consumer) stop() {
	if c.cancel != nil {
		c.cancel()
		<-c.done
	}
}

// queueStatus is the queue's part of collector-status; nil without -queue.
func (a *App) queueStatus(ctx context.Context) *api.QueueStatus {
	if a.queue == nil {
		return nil
	}
	st := api.QueueStatus(a.queue.Status(ctx, time.Now()))
	return &st
}

// queueState answers the query language's layer queue from the queue's status (JetStream's,
// not the records store's); nil without -queue.
func (a *App) queueState() func(context.Context) (pvql.QueueState, error) {
	if a.queue == nil {
		return nil
	}
	return func(ctx context.Context) (pvql.QueueState, error) {
		st := a.queue.Status(ctx, time.Now())
		if st.Error != "" {
			return pvql.QueueState{}, fmt.Errorf("%w: %s", records.ErrUnavailable, st.Error)
		}
		return pvql.QueueState{Pending: st.Pending, DeadLetters: st.DeadLetters, OldestAge: st.OldestAge,
			Redelivered: st.Redelivered, Published: st.Published}, nil
	}
}

// queueMetrics adds the queue's metrics to next's answer.
func (a *App) queueMetrics(next http.Handler) http.Handler {
	if a.queue == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		writeQueueMetrics(w, a.queue.Status(r.Context(), time.Now()))
	})
}

// writeQueueMetrics writes st in the Prometheus text format.
func writeQueueMetrics(w io.Writer, st queue.Status) {
	up := 1
	if st.Error != "" {
		up = 0
	}
	for _, m := range []struct {
		name, typ, help string
		value           float64
	}{
		{"queue_up", "gauge", "1 when NATS is reached and the stream exists, else 0", float64(up)},
		{"queue_records_published_total", "counter", "records this node published", float64(st.Published)},
		{"queue_records_refused_total", "counter", "records this node could not publish (NATS unreachable, stream full)", float64(st.Refused)},
		{"queue_records_stored_total", "counter", "records this node's consumer stored", float64(st.Stored)},
		{"queue_batches_redelivered_total", "counter", "batches this node's consumer was given again", float64(st.Redelivered)},
		{"queue_batches_pending", "gauge", "batches waiting in the stream to be stored (the consumers' lag)", float64(st.Pending)},
		{"queue_batches_dead", "gauge", "batches in the dead-letter subject", float64(st.DeadLetters)},
		{"queue_oldest_pending_seconds", "gauge", "age of the oldest batch waiting", st.OldestAge},
	} {
		fmt.Fprintf(w, "# HELP %s Queue: %s.\n# TYPE %s %s\n%s %g\n", m.name, m.help, m.name, m.typ, m.name, m.value)
	}
}
