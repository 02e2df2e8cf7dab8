package queue

import (
	"context"
	"errors"
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
// Duplicates and the consumers store each once: a message whose acknowledgement does not come
// (a NATS node failing over) is published again, within PublishTimeout. When NATS cannot be
// reached, the stream is full or MaxInFlight bytes wait already, it fails
// (records.ErrUnavailable) at once: the caller counts the records lost, as when the store
// fails. A batch of several messages of which some were acknowledged before a failure keeps
// those.
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
	ctx, cancel := context.WithTimeout(ctx, PublishTimeout)
	defer cancel()
	if err := q.readyStream(ctx); err != nil {
		return unavailable(err)
	}
	batch := nuid.Next()
	limit := q.nc.MaxPayload() - 1024 // room for the headers
	var parts []*part
	held := int64(0)
	defer func() { q.inFlight.Add(-held) }()
	for len(recs) > 0 {
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
		p := &part{id: batch + "." + strconv.Itoa(len(parts)), data: data}
		if q.send(p) != nil {
			p.f = nil // await sends it again
		}
		parts = append(parts, p)
		recs = recs[n:]
	}
	for _, p := range parts {
		if err := q.await(ctx, p); err != nil {
			return unavailable(err)
		}
	}
	return nil
}

// readyStream waits within ctx for the stream to be known, asking again every 2 s: a request
// lost while a NATS node fails over (its meta leader killed) is asked again of the next. A
// connection lost is waited for a second (a client reconnects to another node in less), then
// refused at once, so that a sensor whose NATS is down drops and counts without waiting.
func (q *Queue) readyStream(ctx context.Context) error {
	start := time.Now()
	for {
		try, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := q.streamOf(try)
		cancel()
		if err == nil {
			return nil
		}
		if !q.nc.IsConnected() && time.Since(start) > time.Second {
			return err
		}
		t := time.NewTimer(200 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// part is one message of a batch being published.
type part struct {
	id   string
	data []byte
	f    jetstream.PubAckFuture
}

// send publishes p without waiting for its acknowledgement.
func (q *Queue) send(p *part) error {
	msg := &nats.Msg{Subject: Subject, Data: p.data, Header: nats.Header{}}
	f, err := q.js.PublishMsgAsync(msg, jetstream.WithMsgID(p.id))
	p.f = f
	return err
}

// await waits for p's acknowledgement, publishing p again under its id (JetStream drops the
// copies it has) when none came for another reason than JetStream's refusal (a full stream):
// a time-out or a lost connection while a NATS node fails over.
func (q *Queue) await(ctx context.Context, p *part) error {
	for {
		var err error
		if p.f != nil {
			select {
			case <-p.f.Ok():
				return nil
			case err = <-p.f.Err():
			case <-ctx.Done():
				return fmt.Errorf("no acknowledgement: %w", ctx.Err())
			}
			var refused *jetstream.APIError
			if errors.As(err, &refused) {
				return err
			}
		}
		t := time.NewTimer(200 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("no acknowledgement (%v): %w", err, ctx.Err())
		case <-t.C:
		}
		if err := q.send(p); err != nil {
			p.f = nil
		}
	}
}
