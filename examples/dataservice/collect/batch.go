package collect

import (
	"net/netip"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// conversation identifies the record a flow's counts go to within a batch: both directions of
// one conversation, seen by one exporter through the same interfaces in one time slice, share
// it.
type conversation struct {
	time           int64
	protocol       uint8
	client, server netip.AddrPort
	exporter       netip.Addr
	inIf, outIf    uint32
}

// batch gathers the records of one worker until they are stored, merging those of one
// conversation. It is not safe for concurrent use.
type batch struct {
	recs  []records.Record
	index map[conversation]int
}

func newBatch(size int) *batch {
	return &batch{recs: make([]records.Record, 0, size), index: make(map[conversation]int, size)}
}

// add adds r to the batch: to the record of its conversation when there is one (a
// transport record's).
func (b *batch) add(r records.Record) {
	if r.Layer != records.LayerTransport { // one request or query each: never merged
		b.recs = append(b.recs, r)
		return
	}
	k := conversation{
		time: r.Time, protocol: r.Protocol, exporter: r.Exporter, inIf: r.InIf, outIf: r.OutIf,
		client: netip.AddrPortFrom(r.Client.IP, r.Client.Port),
		server: netip.AddrPortFrom(r.Server.IP, r.Server.Port),
	}
	i, ok := b.index[k]
	if !ok {
		b.index[k] = len(b.recs)
		b.recs = append(b.recs, r)
		return
	}
	m := &b.recs[i]
	m.Client.Bytes = min(m.Client.Bytes+r.Client.Bytes, records.MaxCount)
	m.Client.Packets = min(m.Client.Packets+r.Client.Packets, records.MaxCount)
	m.Server.Bytes = min(m.Server.Bytes+r.Server.Bytes, records.MaxCount)
	m.Server.Packets = min(m.Server.Packets+r.Server.Packets, records.MaxCount)
	m.Client.Retrans = min(m.Client.Retrans+r.Client.Retrans, records.MaxCount)
	m.Server.Retrans = min(m.Server.Retrans+r.Server.Retrans, records.MaxCount)
	addTiming(&m.Client.RTT, r.Client.RTT)
	addTiming(&m.Server.RTT, r.Server.RTT)
	addTiming(&m.CT, r.CT)
	addTiming(&m.SRT, r.SRT)
	addTiming(&m.DTT, r.DTT)
}

// len returns how many records the batch holds.
func (b *batch) len() int { return len(b.recs) }
