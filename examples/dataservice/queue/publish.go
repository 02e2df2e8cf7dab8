package queue

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// maxPart is the most records of one message; a part whose encoding passes the server's
// largest payload is cut in halves.
const maxPart = 8192

// Ingest publishes recs to the stream and returns once JetStream acknowledged them: it takes
// the place of the records store's Ingest on a node with -queue. It validates recs first (a
// bad record is a *records.BatchError and nothing is published). The records go in messages
// of at most maxPart records and the server's largest payload, each with the id
// BATCH.PART in Nats-Msg-Id, so that JetStream drops a message published again within
// Duplicates and the consumers store each once. When NATS cannot be reached, the stream is
// full or MaxInFlight bytes wait already, it fails (records.ErrUnavailable) at once: the
// caller counts the records lost, as when the store fails. A batch of several messages of
// which some were acknowledged before a failure keeps those.
func (q *Queue) Ingest(ctx context.Context, recs []records.Record) error {
	if len(recs) == 0 {
		return nil
	}
	if err := records.ValidateBatch(recs, time.Now()); err != nil {
		return err
	}
	if err := q.publish(ctx, recs); err != nil {
		q.refused.Add(uint64(len(recs)))
		return err
	}
	q.published.Add(uint64(len(recs)))
	return nil
}

func (q *Queue) publish(ctx context.Context, recs []records.Record) error {
	if _, err := q.streamOf(ctx); err != nil {
		return unavailable(err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, PublishTimeout)
		defer cancel()
	}
	batch := nuid.Next()
	limit := q.nc.MaxPayload() - 1024 // room for the headers
	var futures []jetstream.PubAckFuture
	held := int64(0)
	defer func() { q.inFlight.Add(-held) }()
	for part := 0; len(recs) > 0; part++ {
		n := min(len(recs), maxPart)
		data := Encode(nil, recs[:n])
		for int64(len(data)) > limit && n > 1 {
			n /= 2
			data = Encode(data[:0], recs[:n])
		}
		if int64(len(data)) > limit {
			return fmt.Errorf("queue: a record of %d bytes passes the server's largest message", len(data))
		}
		if q.inFlight.Add(int64(len(data))) > q.cfg.MaxInFlight {
			q.inFlight.Add(-int64(len(data)))
			return unavailable(fmt.Errorf("%d bytes wait for JetStream's acknowledgement already (MaxInFlight)", q.inFlight.Load()))
		}
		held += int64(len(data))
		msg := &nats.Msg{Subject: Subject, Data: data, Header: nats.Header{}}
		f, err := q.js.PublishMsgAsync(msg, jetstream.WithMsgID(batch+"."+strconv.Itoa(part)))
		if err != nil {
			return unavailable(err)
		}
		futures = append(futures, f)
		recs = recs[n:]
	}
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return unavailable(err)
		case <-ctx.Done():
			return unavailable(fmt.Errorf("no acknowledgement: %w", ctx.Err()))
		}
	}
	return nil
}
