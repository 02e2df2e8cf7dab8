package collect

import (
	"context"
	"sync"
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
			switch r.Layer {
			case records.LayerHTTP:
				c.boundHTTP(d.ex, &r)
			case records.LayerDNS:
				c.boundDNS(d.ex, &r)
			}
			b.add(r)
		}
	}
	return flows, recs
}

// write stores the batches until the workers are done. The batches waiting when it takes one
// (up to the channel's two and one a worker hands over) are stored at once, each by its own
// Ingest call: a store that commits concurrent calls together (DuckDB's group commit) then
// pays its cost of a transaction, about 10 ms for the records and rollup tables, once for all
// of them, so a backlog shrinks rather than waits one transaction a batch.
func (c *Collector) write() {
	for recs := range c.batches {
		group := [][]records.Record{recs}
	drain:
		for len(group) < maxWrites {
			select {
			case more, ok := <-c.batches:
				if !ok {
					break drain
				}
				group = append(group, more)
			default:
				break drain
			}
		}
		var wg sync.WaitGroup
		for _, recs := range group[1:] {
			wg.Go(func() { c.storeBatch(recs) })
		}
		c.storeBatch(group[0])
		wg.Wait()
	}
}

// maxWrites bounds the batches write stores at once.
const maxWrites = 4

// storeBatch stores one batch, counting it stored or lost.
func (c *Collector) storeBatch(recs []records.Record) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	err := c.store.Ingest(ctx, recs)
	cancel()
	if err != nil {
		c.stats.storeErrors.Add(1)
		c.stats.lost.Add(uint64(len(recs)))
		c.log.Error("storing collected flows", zap.Int("records", len(recs)), zap.Error(err))
		return
	}
	c.stats.stored.Add(uint64(len(recs)))
}
