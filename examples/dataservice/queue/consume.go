package queue

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Workers is how many batches a consuming node stores at once (DuckDB commits them together);
// fetch is how many messages each asks for at a time.
const (
	Workers = 4
	fetch   = 4
)

// A Gatherer is a records store whose cost of a write is mostly by write rather than by
// record (ClickHouse: a part of each table, the views run once): the consumer gathers the
// batches it fetched into one IngestBatches of at most GatherRecords records, waiting at most
// GatherWait for them (records/clickhouse). IngestBatches stores every batch as IngestBatch
// does, or fails; a batch refused for its content fails it whole.
type Gatherer interface {
	IngestBatches(ctx context.Context, bs []records.Batch) error
}

// GatherRecords bounds the records of one gathered write, GatherWait the wait for a fetch's
// messages (a write's added latency); gatherFetch is how many messages a worker asks for at a
// time (each holds at most maxPart records).
const (
	GatherRecords = 100_000
	GatherWait    = 200 * time.Millisecond
	gatherFetch   = 64
)

// Consume stores the stream's batches in store through the durable consumer Durable until ctx
// ends, with Workers goroutines; it returns at once. A batch is acknowledged once
// store.IngestBatch returned nil, with the message's id (its Nats-Msg-Id, else its stream
// sequence) and Again when JetStream delivered it before; a batch that does not decode, or
// that the store refuses for its content (a *records.BatchError), is published to DeadSubject
// with the reason in the header Svc-Error, then acknowledged; a batch the store could not take
// for another reason (unavailable) is given back (nak) to be delivered again after a delay. A
// store that is a Gatherer gets the batches of each fetch gathered (gather).
// done is closed once every worker returned.
func (q *Queue) Consume(ctx context.Context, store records.BatchStore) (done <-chan struct{}) {
	var wg sync.WaitGroup
	for range Workers {
		wg.Go(func() { q.work(ctx, store) })
	}
	d := make(chan struct{})
	go func() {
		wg.Wait()
		close(d)
	}()
	return d
}

// work fetches and stores batches until ctx ends.
func (q *Queue) work(ctx context.Context, store records.BatchStore) {
	var cons jetstream.Consumer
	fails := 0
	pause := func(err error) {
		fails++
		if fails == 1 || fails%60 == 0 {
			q.cfg.Log.Warn("queue: consuming", zap.Error(err), zap.Int("failures", fails))
		}
		t := time.NewTimer(time.Second)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
	g, gathers := store.(Gatherer)
	n, wait := fetch, 2*time.Second
	if gathers {
		n, wait = gatherFetch, GatherWait
	}
	for ctx.Err() == nil {
		if cons == nil {
			s, err := q.streamOf(ctx)
			if err == nil {
				cons, err = s.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
					Durable: Durable, AckPolicy: jetstream.AckExplicitPolicy, AckWait: q.cfg.AckWait,
					MaxDeliver: -1, FilterSubject: Subject,
				})
			}
			if err != nil {
				pause(err)
				continue
			}
		}
		batch, err := cons.Fetch(n, jetstream.FetchMaxWait(wait))
		if err != nil {
			cons = nil
			pause(err)
			continue
		}
		msgs, stop := q.keep(batch.Messages())
		if gathers {
			q.gather(ctx, store, g, msgs)
		} else {
			for msg := range msgs {
				if ctx.Err() != nil || q.nc.IsClosed() {
					continue // left to be delivered again, to this node or another
				}
				q.handle(ctx, store, msg)
			}
		}
		stop()
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && ctx.Err() == nil {
			cons = nil
			pause(err)
			continue
		}
		fails = 0
	}
}

// handle stores one message's batch and acknowledges it, dead-letters it, or gives it back.
func (q *Queue) handle(ctx context.Context, store records.BatchStore, msg jetstream.Msg) {
	b, delivered, err := q.batchOf(msg, false)
	if err == nil {
		err = q.store(func(ctx context.Context) error { return store.IngestBatch(ctx, b) })
	}
	q.answer(ctx, msg, b, delivered, err)
}

// batchOf decodes msg's batch, given Again when JetStream delivered it before or again is
// true, and returns how many times JetStream delivered it; an error when it has no metadata
// (then it is terminated and the batch's ID is "") or does not decode.
func (q *Queue) batchOf(msg jetstream.Msg, again bool) (b records.Batch, delivered uint64, err error) {
	meta, err := msg.Metadata()
	if err != nil {
		return b, 0, err
	}
	b = records.Batch{ID: msg.Headers().Get(jetstream.MsgIDHeader), Again: again || meta.NumDelivered > 1}
	if b.ID == "" || len(b.ID) > records.MaxBatchIDLen {
		b.ID = "seq." + strconv.FormatUint(meta.Sequence.Stream, 10)
	}
	if meta.NumDelivered > 1 && !again {
		q.redelivered.Add(1)
	}
	b.Records, err = Decode(msg.Data())
	return b, meta.NumDelivered, err
}

// answer acknowledges msg when its batch b was stored (err nil), dead-letters it when it did
// not decode or the store refused its content, and gives it back otherwise.
func (q *Queue) answer(ctx context.Context, msg jetstream.Msg, b records.Batch, delivered uint64, err error) {
	var bad *records.BatchError
	switch {
	case b.ID == "":
		q.cfg.Log.Error("queue: a message without JetStream metadata", zap.Error(err))
		_ = msg.Term()
	case err == nil:
		q.stored.Add(uint64(len(b.Records)))
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := msg.DoubleAck(actx); err != nil {
			q.cfg.Log.Warn("queue: acknowledging a stored batch (it will come again, and be stored once)", zap.String("batch", b.ID), zap.Error(err))
		}
	case errors.Is(err, ErrEncoding) || errors.As(err, &bad):
		q.deadLetter(ctx, msg, b.ID, err)
	default:
		if ctx.Err() == nil {
			q.cfg.Log.Warn("queue: storing a batch, it will come again", zap.String("batch", b.ID), zap.Error(err))
		}
		delay := min(time.Duration(delivered)*time.Second, 30*time.Second)
		_ = msg.NakWithDelay(delay)
	}
}

// gather stores the batches of a fetch's messages in writes of at most GatherRecords records
// (g.IngestBatches), receiving every message first (at most GatherWait). Messages that do not
// decode, and batches the store refuses for their content (each validated first), are
// dead-lettered alone.
func (q *Queue) gather(ctx context.Context, store records.BatchStore, g Gatherer, msgs <-chan jetstream.Msg) {
	var all []jetstream.Msg
	for msg := range msgs {
		all = append(all, msg)
	}
	if len(all) == 0 || ctx.Err() != nil || q.nc.IsClosed() {
		return // left to be delivered again, to this node or another
	}
	// Each message is decoded as its write is gathered: at most GatherRecords records and a
	// message's are held decoded.
	var group []item
	size := 0
	now := time.Now()
	for _, msg := range all {
		b, delivered, err := q.batchOf(msg, false)
		if err == nil {
			err = records.ValidateBatch(b.Records, now)
		}
		if err != nil {
			q.answer(ctx, msg, b, delivered, err)
			continue
		}
		if len(group) > 0 && size+len(b.Records) > GatherRecords {
			q.write(ctx, store, g, group)
			group, size = nil, 0
		}
		group = append(group, item{msg, b, delivered})
		size += len(b.Records)
	}
	if len(group) > 0 {
		q.write(ctx, store, g, group)
	}
}

// write stores the batches of group in one g.IngestBatches and answers their messages; when
// it fails for another reason than the store's availability, each batch is stored again alone,
// given Again (some may be stored).
func (q *Queue) write(ctx context.Context, store records.BatchStore, g Gatherer, group []item) {
	if ctx.Err() != nil || q.nc.IsClosed() {
		return // left to be delivered again, to this node or another
	}
	bs := make([]records.Batch, len(group))
	for i, it := range group {
		bs[i] = it.b
	}
	err := q.store(func(ctx context.Context) error { return g.IngestBatches(ctx, bs) })
	for _, it := range group {
		if err != nil && !errors.Is(err, records.ErrUnavailable) {
			it.b.Again = true
			q.answer(ctx, it.msg, it.b, it.delivered, q.store(func(ctx context.Context) error { return store.IngestBatch(ctx, it.b) }))
			continue
		}
		q.answer(ctx, it.msg, it.b, it.delivered, err)
	}
}

// item is a fetched message and its batch, decoded.
type item struct {
	msg       jetstream.Msg
	b         records.Batch
	delivered uint64
}

// store calls ingest with a context that does not end with Consume's: a write under way then
// is done to the end (at most a minute) unless the Queue is closed, so that its batches are
// acknowledged.
func (q *Queue) store(ingest func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(q.life, time.Minute)
	defer cancel()
	return ingest(ctx)
}

// keep passes on the messages of a fetch, telling JetStream every AckWait/3 until stop is
// called that each is in progress, from its delivery to its answer (which ends it): none is
// delivered again while it waits behind others of its fetch or is stored. (A message that
// waited in a fetch unkept was delivered to another worker meanwhile, which stored it too
// before the first wrote its id.)
func (q *Queue) keep(in <-chan jetstream.Msg) (out <-chan jetstream.Msg, stop func()) {
	var mu sync.Mutex
	var held []jetstream.Msg
	pass := make(chan jetstream.Msg, max(cap(in), gatherFetch)) // every message of a fetch
	done := make(chan struct{})
	go func() {
		defer close(pass)
		for m := range in {
			mu.Lock()
			held = append(held, m)
			mu.Unlock()
			pass <- m
		}
	}()
	go func() {
		t := time.NewTicker(q.cfg.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				mu.Lock()
				for _, m := range held {
					_ = m.InProgress() // fails at once, unsent, for a message answered
				}
				mu.Unlock()
			}
		}
	}()
	return pass, func() { close(done) }
}

// deadLetter publishes msg's data to DeadSubject with why in Svc-Error, then acknowledges
// msg; when the publishing fails it gives msg back, to be tried again.
func (q *Queue) deadLetter(ctx context.Context, msg jetstream.Msg, id string, why error) {
	reason := why.Error()
	if len(reason) > 1024 {
		reason = reason[:1024]
	}
	dead := &nats.Msg{Subject: DeadSubject, Data: msg.Data(), Header: nats.Header{}}
	dead.Header.Set("Svc-Error", reason)
	dead.Header.Set("Svc-Batch", id)
	pctx, cancel := context.WithTimeout(ctx, PublishTimeout)
	defer cancel()
	if _, err := q.js.PublishMsg(pctx, dead, jetstream.WithMsgID("dead."+id)); err != nil {
		q.cfg.Log.Warn("queue: publishing a refused batch to "+DeadSubject, zap.String("batch", id), zap.Error(err))
		_ = msg.NakWithDelay(time.Second)
		return
	}
	q.dead.Add(1)
	q.cfg.Log.Error("queue: a batch the store refused went to "+DeadSubject, zap.String("batch", id), zap.Error(why))
	actx, acancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer acancel()
	if err := msg.DoubleAck(actx); err != nil {
		q.cfg.Log.Warn("queue: acknowledging a dead-lettered batch", zap.String("batch", id), zap.Error(err))
	}
}

// Status is the queue's state as collector-status shows it.
type Status struct {
	// Published is how many records this node published; Refused how many it could not.
	Published uint64 `json:"published"`
	Refused   uint64 `json:"refused"`
	// Pending is how many batches wait in the stream to be stored (the consumers' lag).
	Pending uint64 `json:"pending"`
	// Redelivered is how many batches this node's consumer was given again (after a crash,
	// a time-out or a store that was unavailable).
	Redelivered uint64 `json:"redelivered"`
	// DeadLetters is how many batches the stream holds in DeadSubject.
	DeadLetters uint64 `json:"dead_letters"`
	// Stored is how many records of the batches this node's consumer acknowledged: stored, or
	// found stored already when given again.
	Stored uint64 `json:"stored"`
	// OldestAge is the age of the oldest batch waiting, in seconds; 0 when none waits.
	OldestAge float64 `json:"oldest_age"`
	// Error says why the queue is not ready; "" when it is.
	Error string `json:"error,omitempty"`
}

// Status returns the queue's state: this node's counters, and the stream's (a JetStream
// request, at most 2 s; Error says when it failed).
func (q *Queue) Status(ctx context.Context, now time.Time) Status {
	st := Status{Published: q.published.Load(), Refused: q.refused.Load(), Redelivered: q.redelivered.Load(), Stored: q.stored.Load()}
	if err := q.Ready(); err != nil {
		st.Error = err.Error()
		return st
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	s, err := q.streamOf(ctx)
	var info *jetstream.StreamInfo
	if err == nil {
		info, err = s.Info(ctx, jetstream.WithSubjectFilter(DeadSubject))
	}
	if err != nil {
		st.Error = fmt.Sprintf("queue %s: %v", q.cfg.URLs, err)
		return st
	}
	st.DeadLetters = info.State.Subjects[DeadSubject]
	st.Pending = info.State.Msgs - st.DeadLetters
	if st.Pending > 0 {
		// The oldest batch is the first message of Subject (dead letters may be older).
		if m, err := s.GetMsg(ctx, info.State.FirstSeq, jetstream.WithGetMsgSubject(Subject)); err == nil {
			st.OldestAge = max(now.Sub(m.Time).Seconds(), 0)
		}
	}
	return st
}
