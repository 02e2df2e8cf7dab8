package collect

import (
	"encoding/binary"
	"sync"
	"time"
)

// Status is what the collector has seen: its sockets, every exporter known and the totals.
// The collector-status function answers it as an api.CollectorStatusResult.
type Status struct {
	// Enabled is true for a Collector's status; the zero Status stands for a service that
	// collects no flows.
	Enabled bool
	// Listen holds the sockets the collector receives on.
	Listen []Socket
	// MaxExporters is how many exporters the collector keeps at once (Limits.MaxExporters).
	MaxExporters int
	// Exporters holds every exporter known, by address.
	Exporters []ExporterStatus
	// Totals adds up the exporters' counters, with the collector's own.
	Totals Totals
}

// Socket is one UDP socket of the collector.
type Socket struct {
	// Protocol is "netflow" (NetFlow v5, v9 and IPFIX) or "sflow" (sFlow v5).
	Protocol string
	// Address is the socket's address, host:port.
	Address string
}

// ExporterStatus is what the collector knows of one exporter: the source address of its
// datagrams.
type ExporterStatus struct {
	// Address is the source address of the exporter's datagrams.
	Address string
	// Protocols lists the kinds of datagrams that decoded: "netflow-v5", "netflow-v9", "ipfix"
	// and "sflow-v5", in that order.
	Protocols []string
	// FirstSeen is when its first datagram arrived (since the collector started or the
	// exporter was last forgotten); LastSeen when its last one did.
	FirstSeen, LastSeen time.Time
	// Datagrams counts the datagrams received; Dropped those dropped because the queue was
	// full; DecodeErrors those that did not decode, in full or in part.
	Datagrams, Dropped, DecodeErrors uint64
	// Flows counts the flows decoded (sFlow: flow samples); FlowsPerSecond is those of the
	// last minute per second (over the time since FirstSeen when shorter).
	Flows          uint64
	FlowsPerSecond float64
	// RecordsInvalid counts records of flows refused by validation (an exporter with a wrong
	// clock).
	RecordsInvalid uint64
	// SetsWithoutTemplate counts NetFlow v9 or IPFIX data sets dropped because their template
	// was unknown or expired.
	SetsWithoutTemplate uint64
	// Templates is the number of NetFlow v9 and IPFIX templates held; TemplatesRefused counts
	// those refused by the bounds on templates and their fields.
	Templates        int64
	TemplatesRefused uint64
	// FieldsIgnored counts nProbe or Cisco AVC fields ignored (the rest of their records
	// kept): of a length no unsigned integer has, or too large a value.
	FieldsIgnored uint64
}

// Totals are the collector's counters in total: the exporters' added up (Exporters is how
// many are known), with the collector's own.
type Totals struct {
	Exporters                               int
	Datagrams, Dropped, DecodeErrors, Flows uint64
	FlowsPerSecond                          float64
	RecordsInvalid                          uint64
	// RefusedDatagrams counts datagrams from exporters beyond MaxExporters.
	RefusedDatagrams uint64
	// RecordsStored counts the records stored; StoreErrors the batches the store refused,
	// and RecordsLost their records.
	RecordsStored, StoreErrors, RecordsLost uint64
}

// datagramKinds are the kinds of datagrams an exporter's status lists, in the order it lists
// them: the collector's protocol and the version field that opens the datagram (16 bits for
// NetFlow and IPFIX, 32 for sFlow). An exporter keeps one bit per kind, by index.
var datagramKinds = []struct {
	name    string
	proto   Protocol
	version uint32
}{
	{"netflow-v5", NetFlow, 5},
	{"netflow-v9", NetFlow, 9},
	{"ipfix", NetFlow, 10},
	{"sflow-v5", SFlow, 5},
}

// kindBit returns the bit of the kind of datagram b received as proto; 0 for none.
func kindBit(proto Protocol, b []byte) uint32 {
	var v uint32
	switch {
	case proto == SFlow && len(b) >= 4:
		v = binary.BigEndian.Uint32(b)
	case proto == NetFlow && len(b) >= 2:
		v = uint32(binary.BigEndian.Uint16(b))
	default:
		return 0
	}
	for i, k := range datagramKinds {
		if k.proto == proto && k.version == v {
			return 1 << i
		}
	}
	return 0
}

// markKind records that a datagram of b's kind decoded.
func (ex *exporter) markKind(proto Protocol, b []byte) {
	if bit := kindBit(proto, b); bit != 0 && ex.kinds.Load()&bit == 0 {
		ex.kinds.Or(bit)
	}
}

// protocols returns the names of the kinds marked, in datagramKinds' order.
func (ex *exporter) protocols() []string {
	out := []string{}
	bits := ex.kinds.Load()
	for i, k := range datagramKinds {
		if bits&(1<<i) != 0 {
			out = append(out, k.name)
		}
	}
	return out
}

// rateWindow is how many seconds flowRate counts: the last minute.
const rateWindow = 60

// flowRate counts an exporter's flows per second over the last rateWindow seconds, in a ring
// of one counter per second: 1 KiB per exporter, so MaxExporters bounds them all. The worker
// of the exporter adds; Status reads.
type flowRate struct {
	mu  sync.Mutex
	sec [rateWindow]int64 // the Unix second each counter counts
	n   [rateWindow]uint64
}

// add counts n flows in the Unix second sec.
func (r *flowRate) add(sec int64, n uint64) {
	i := (sec%rateWindow + rateWindow) % rateWindow
	r.mu.Lock()
	if r.sec[i] != sec {
		r.sec[i], r.n[i] = sec, 0
	}
	r.n[i] += n
	r.mu.Unlock()
}

// perSecond returns the flows counted in the second now and the rateWindow-1 before it,
// divided by rateWindow, or by the seconds since first (the exporter's first second, counted
// whole) when fewer.
func (r *flowRate) perSecond(now, first int64) float64 {
	var sum uint64
	r.mu.Lock()
	for i, s := range r.sec {
		if s > now-rateWindow && s <= now {
			sum += r.n[i]
		}
	}
	r.mu.Unlock()
	span := min(rateWindow, max(1, now-first+1))
	return float64(sum) / float64(span)
}

// Status answers the collector's status at now: its sockets, every exporter known (by
// address) with its counters, and the totals, as the collector-status function answers them.
func (c *Collector) Status(now time.Time) Status {
	c.mu.Lock()
	listen := append([]Socket{}, c.sockets...)
	c.mu.Unlock()
	list := c.exporters.list()
	st := Status{
		Enabled: true, Listen: listen, MaxExporters: c.limits.MaxExporters,
		Exporters: make([]ExporterStatus, 0, len(list)),
		Totals: Totals{
			Exporters:        len(list),
			RefusedDatagrams: c.exporters.refused.Load(),
			RecordsStored:    c.stats.stored.Load(),
			StoreErrors:      c.stats.storeErrors.Load(),
			RecordsLost:      c.stats.lost.Load(),
		},
	}
	for _, ex := range list {
		e := ExporterStatus{
			Address:             ex.addr.String(),
			Protocols:           ex.protocols(),
			FirstSeen:           ex.firstSeen.UTC().Truncate(time.Millisecond),
			LastSeen:            time.Unix(0, ex.lastSeen.Load()).UTC().Truncate(time.Millisecond),
			Datagrams:           ex.datagrams.Load(),
			Dropped:             ex.dropped.Load(),
			DecodeErrors:        ex.decodeErrors.Load(),
			Flows:               ex.flows.Load(),
			FlowsPerSecond:      ex.rate.perSecond(now.Unix(), ex.firstSeen.Unix()),
			RecordsInvalid:      ex.invalid.Load(),
			SetsWithoutTemplate: ex.noTemplate.Load(),
			Templates:           ex.templates.Load(),
			TemplatesRefused:    ex.refusedTpl.Load(),
			FieldsIgnored:       ex.ignoredFields.Load(),
		}
		st.Exporters = append(st.Exporters, e)
		t := &st.Totals
		t.Datagrams += e.Datagrams
		t.Dropped += e.Dropped
		t.DecodeErrors += e.DecodeErrors
		t.Flows += e.Flows
		t.FlowsPerSecond += e.FlowsPerSecond
		t.RecordsInvalid += e.RecordsInvalid
	}
	return st
}
