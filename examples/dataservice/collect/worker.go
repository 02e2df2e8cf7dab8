package collect

import (
	"context"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"go.uber.org/zap"
)

// work decodes the datagrams of q into records, gathers them in a batch and hands the batch
// to the writer when it is full or FlushInterval has passed.
func (c *Collector) work(q <-chan datagram) {
	b := newBatch(c.limits.BatchSize)
	tick := time.NewTicker(c.limits.FlushInterval)
	defer tick.Stop()
	var flows []Flow
	var recs []records.Record
	flush := func() {
		if b.len() > 0 {
			c.batches <- b.recs
			b = newBatch(c.limits.BatchSize)
		}
	}
	for {
		select {
		case d, ok := <-q:
			if !ok {
				flush()
				return
			}
			c.queued.Add(-int64(len(d.data)))
			flows, recs = c.decode(d, b, flows[:0], recs[:0])
			if b.len() >= c.limits.BatchSize {
				flush()
			}
		case <-tick.C:
			flush()
		}
	}
}

// decode adds the records of one datagram to b; flows and recs are scratch space, returned
// for reuse.
func (c *Collector) decode(d datagram, b *batch, flows []Flow, recs []records.Record) ([]Flow, []records.Record) {
	var err error
	if d.proto == SFlow {
		flows, err = decodeSFlow(d.data, d.at.UnixMilli(), flows)
	} else {
		ts := templateStore{ex: d.ex, now: d.at, limits: &c.limits}
		flows, err = decodeNetFlow(d.data, &ts, flows)
	}
	if err != nil {
		d.ex.decodeErrors.Add(1)
	} else {
		d.ex.markKind(d.proto, d.data)
	}
	if len(flows) > 0 {
		d.ex.lastFlow.Store(d.at.UnixNano())
		d.ex.flows.Add(uint64(len(flows)))
		d.ex.rate.add(d.at.Unix(), uint64(len(flows)))
	}
	slice := int64(c.limits.Slice / time.Second)
	for i := range flows {
		recs = appendRecords(recs[:0], &flows[i], d.ex.addr, slice)
		for _, r := range recs {
			if r.Validate(d.at) != nil {
				d.ex.invalid.Add(1)
				continue
			}
			if r.Layer == records.LayerHTTP {
				c.boundHTTP(d.ex, &r)
			}
			b.add(r)
		}
	}
	return flows, recs
}

// write stores the batches until the workers are done.
func (c *Collector) write() {
	for recs := range c.batches {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := c.store.Ingest(ctx, recs)
		cancel()
		if err != nil {
			c.stats.storeErrors.Add(1)
			c.stats.lost.Add(uint64(len(recs)))
			c.log.Error("storing collected flows", zap.Int("records", len(recs)), zap.Error(err))
			continue
		}
		c.stats.stored.Add(uint64(len(recs)))
	}
}
