package collect

import (
	"cmp"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"go.uber.org/zap"
)

// exporter is what the collector knows of one exporting device (one source address). Its
// counters are atomic, read by the metrics; nf and http belong to the one worker that decodes the
// exporter's datagrams.
type exporter struct {
	addr      netip.Addr
	proto     Protocol
	firstSeen time.Time     // the first datagram's arrival
	lastSeen  atomic.Int64  // Unix nanoseconds of the last datagram
	lastFlow  atomic.Int64  // Unix nanoseconds of the last datagram that decoded into flows
	kinds     atomic.Uint32 // kinds of datagrams that decoded, a bit per kind (see kinds)
	rate      flowRate      // flows per second over the last minute

	datagrams    atomic.Uint64 // received
	dropped      atomic.Uint64 // datagrams dropped because the queue was full
	decodeErrors atomic.Uint64 // datagrams (or their rest) that did not decode
	flows        atomic.Uint64 // flows decoded
	invalid      atomic.Uint64 // records of flows that records.Validate refused
	noTemplate   atomic.Uint64 // data sets whose template was unknown (or expired)
	refusedTpl   atomic.Uint64 // templates refused by the bounds
	// ignoredFields counts vendor fields (nProbe's, Cisco AVC's) of an unusable length or value
	ignoredFields atomic.Uint64
	// leftOut counts HTTP methods, hosts and paths and DNS names past the hourly bounds
	// (boundHTTP, boundDNS)
	leftOut   atomic.Uint64
	templates atomic.Int64 // templates held

	nf   netflowState
	http *capture.HTTPStrings // of the HTTP records; nil until the first
	dns  *capture.Names       // the query names of the DNS records; nil until the first
}

// exporterTable holds the exporters, at most max of them. When it is full, an exporter silent
// for ttl is forgotten, then the least recently heard of those without flows within ttl
// (evictBatch of them at a time): an exporter with recent flows is never evicted for a new
// address. It is safe for concurrent use.
type exporterTable struct {
	mu      sync.Mutex
	m       map[netip.Addr]*exporter
	max     int
	ttl     time.Duration
	log     *zap.Logger
	refused atomic.Uint64 // datagrams from new exporters when every place was held
	evicted atomic.Uint64 // exporters evicted for new ones
}

// evictBatch is the share of its places (one in evictBatch) a full table frees at once, so that
// a flood of new addresses costs one scan and sort of the table a quarter of it rather than one
// a datagram.
const evictBatch = 4

// get returns the exporter at addr, adding it (with one log line) when it is new; nil when the
// table is full of exporters with flows within ttl.
func (t *exporterTable) get(addr netip.Addr, proto Protocol, now time.Time) *exporter {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ex := t.m[addr]; ex != nil {
		ex.lastSeen.Store(now.UnixNano())
		return ex
	}
	if len(t.m) >= t.max {
		t.expire(now)
		if len(t.m) >= t.max {
			t.refused.Add(1)
			return nil
		}
	}
	ex := &exporter{addr: addr, proto: proto, firstSeen: now}
	ex.lastSeen.Store(now.UnixNano())
	t.m[addr] = ex
	t.log.Info("new flow exporter", zap.Stringer("exporter", addr), zap.String("protocol", proto.String()))
	return ex
}

// expire forgets the exporters silent for ttl and, if none is, evicts the least recently heard
// of those without flows within ttl; t.mu is held.
func (t *exporterTable) expire(now time.Time) {
	type candidate struct {
		lastSeen int64
		addr     netip.Addr
	}
	var idle []candidate
	cut := now.Add(-t.ttl).UnixNano()
	for addr, ex := range t.m {
		switch seen := ex.lastSeen.Load(); {
		case seen < cut:
			delete(t.m, addr)
		case ex.lastFlow.Load() < cut:
			idle = append(idle, candidate{seen, addr})
		}
	}
	if len(t.m) < t.max || len(idle) == 0 {
		return
	}
	slices.SortFunc(idle, func(a, b candidate) int { return cmp.Compare(a.lastSeen, b.lastSeen) })
	for _, c := range idle[:min(len(idle), max(1, t.max/evictBatch))] {
		delete(t.m, c.addr)
		t.evicted.Add(1)
	}
}

// list returns the exporters by address.
func (t *exporterTable) list() []*exporter {
	t.mu.Lock()
	out := make([]*exporter, 0, len(t.m))
	for _, ex := range t.m {
		out = append(out, ex)
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b *exporter) int { return a.addr.Compare(b.addr) })
	return out
}
