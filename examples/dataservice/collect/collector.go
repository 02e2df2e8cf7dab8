package collect

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"go.uber.org/zap"
)

// Protocol is the kind of datagrams a socket receives.
type Protocol uint8

const (
	// NetFlow is NetFlow v5, NetFlow v9 and IPFIX, told apart by their version field.
	NetFlow Protocol = iota + 1
	// SFlow is sFlow v5.
	SFlow
)

// String returns "netflow" or "sflow".
func (p Protocol) String() string {
	if p == SFlow {
		return "sflow"
	}
	return "netflow"
}

// Ingester stores records; records.Store is one.
type Ingester interface {
	Ingest(ctx context.Context, recs []records.Record) error
}

// Limits bound what the collector keeps and how it batches. A zero field takes its default.
type Limits struct {
	// Slice is the length of the records' time slices. Default: one minute.
	Slice time.Duration
	// BatchSize is how many records a worker gathers before storing them. Default: 10,000.
	BatchSize int
	// FlushInterval is the longest a record waits before it is stored. Default: one second.
	FlushInterval time.Duration
	// QueueBytes bounds the datagrams received and not yet decoded; past it datagrams are
	// dropped and counted. Default: 32 MiB.
	QueueBytes int
	// MaxExporters bounds the exporters known at once. A new one takes the place of one silent
	// for TemplateTTL, or else of the least recently heard of those without flows within
	// TemplateTTL; when every place is held by an exporter with recent flows, its datagrams are
	// dropped and counted. Default: 1,000.
	MaxExporters int
	// MaxTemplates bounds the NetFlow v9 and IPFIX templates kept per exporter. Default: 256.
	MaxTemplates int
	// MaxTemplateFields bounds the fields of all templates of one exporter. Default: 4,096.
	MaxTemplateFields int
	// MaxFieldsPerTemplate bounds the fields of one template; a template with more is refused
	// and counted before it is decoded. Default: 256 (real templates have 10 to 100).
	MaxFieldsPerTemplate int
	// TemplateTTL is how long a template, a sampling rate or an exporter lives without being
	// heard of again. Default: one hour (Cisco routers resend templates every 30 minutes).
	TemplateTTL time.Duration
	// MaxHTTPHosts and MaxHTTPPaths bound the distinct hosts and paths (folded) of the HTTP
	// records of one exporter's flows of one hour (nProbe's and Cisco AVC's fields, package
	// doc): past them a record's host is "" and its path "{other}", as the probe's are
	// (capture.HTTPStrings; its methods too: 64 an hour). Default: 10,000 each.
	MaxHTTPHosts, MaxHTTPPaths int
	// MaxDNSNames bounds the distinct query names of the DNS records of one exporter's flows
	// of one hour: past it a record's name reads "{other}" (capture.Names). Default: 10,000.
	MaxDNSNames int
	// MaxHTTPBytes bounds the bytes of the distinct HTTP methods, hosts and paths and DNS
	// names that all exporters' records of one hour make together, each counted with
	// capture.HTTPStringCost: past it a record's new strings are left out as past the
	// exporter's own bounds. Default: 32 MiB (the memory they take stays within a small
	// multiple of it: capture.HTTPBudget).
	MaxHTTPBytes int
	// Workers is how many goroutines decode datagrams. Default: GOMAXPROCS.
	Workers int
}

func (l *Limits) defaults() {
	set := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	setD := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	setD(&l.Slice, time.Minute)
	l.Slice = max(l.Slice.Truncate(time.Second), time.Second)
	set(&l.BatchSize, 10_000)
	setD(&l.FlushInterval, time.Second)
	set(&l.QueueBytes, 32<<20)
	set(&l.MaxExporters, 1000)
	set(&l.MaxTemplates, 256)
	set(&l.MaxTemplateFields, 4096)
	set(&l.MaxFieldsPerTemplate, 256)
	setD(&l.TemplateTTL, time.Hour)
	set(&l.MaxHTTPHosts, 10_000)
	set(&l.MaxHTTPPaths, 10_000)
	set(&l.MaxDNSNames, 10_000)
	set(&l.MaxHTTPBytes, 32<<20)
	set(&l.Workers, runtime.GOMAXPROCS(0))
}

// Collector receives flow datagrams on UDP sockets, decodes them and stores the records they
// make through an Ingester, in batches. Create it with New, add sockets with Listen, and call
// Close to stop it: Close stores what was received before it. It is safe for concurrent use.
type Collector struct {
	store     Ingester
	log       *zap.Logger
	limits    Limits
	exporters exporterTable
	seed      maphash.Seed
	queues    []chan datagram
	queued    atomic.Int64 // bytes in queues
	batches   chan []records.Record
	stats     totals
	httpBytes *capture.HTTPBudget // all exporters' HTTP strings of an hour (Limits.MaxHTTPBytes)

	mu      sync.Mutex
	conns   []net.PacketConn
	sockets []Socket // conns' protocols and addresses, for Status
	readers sync.WaitGroup
	workers sync.WaitGroup
	writer  sync.WaitGroup
	closed  bool
}

// datagram is one received datagram on its way to a worker.
type datagram struct {
	ex    *exporter
	data  []byte
	proto Protocol
	at    time.Time
}

// totals are the collector's counters that belong to no exporter.
type totals struct {
	stored      atomic.Uint64 // records stored
	storeErrors atomic.Uint64 // batches the store refused
	lost        atomic.Uint64 // records in those batches
}

// New starts a collector that stores into store; log receives one line per new exporter and
// the store's errors (nil: none).
func New(store Ingester, log *zap.Logger, limits Limits) *Collector {
	if log == nil {
		log = zap.NewNop()
	}
	limits.defaults()
	c := &Collector{
		store: store, log: log, limits: limits, seed: maphash.MakeSeed(),
		exporters: exporterTable{m: make(map[netip.Addr]*exporter), max: limits.MaxExporters, ttl: limits.TemplateTTL, log: log},
		batches:   make(chan []records.Record, 2),
		httpBytes: capture.NewHTTPBudget(int64(limits.MaxHTTPBytes)),
	}
	for range limits.Workers {
		q := make(chan datagram, 4096)
		c.queues = append(c.queues, q)
		c.workers.Add(1)
		go func() {
			defer c.workers.Done()
			c.work(q)
		}()
	}
	c.writer.Add(1)
	go func() {
		defer c.writer.Done()
		c.write()
	}()
	return c
}

// ReadBuffer is the receive buffer Listen asks for each socket, in bytes: a burst waits in the
// kernel while the workers catch up (100,000 flows a second of NetFlow v5 are about 5 MB a
// second). Linux grants it past net.core.rmem_max only to a process with CAP_NET_ADMIN;
// otherwise Listen logs the size granted.
const ReadBuffer = 16 << 20

// Listen opens a UDP socket on addr ("host:port") for datagrams of proto and serves it until
// Close. It returns the socket's address (useful with port 0).
func (c *Collector) Listen(proto Protocol, addr string) (net.Addr, error) {
	conn, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("collect: %s: %w", proto, err)
	}
	udp := conn.(*net.UDPConn)
	if got := setReadBuffer(udp, ReadBuffer); got < ReadBuffer {
		c.log.Warn("collect: the socket's receive buffer is smaller than asked: a burst of flows may be dropped by the kernel; raise net.core.rmem_max",
			zap.String("address", conn.LocalAddr().String()), zap.Int("bytes", got), zap.Int("asked", ReadBuffer))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		conn.Close()
		return nil, errors.New("collect: closed")
	}
	c.conns = append(c.conns, conn)
	c.sockets = append(c.sockets, Socket{Protocol: proto.String(), Address: conn.LocalAddr().String()})
	c.readers.Add(1)
	go func() {
		defer c.readers.Done()
		c.read(udp, proto)
	}()
	return conn.LocalAddr(), nil
}

// read receives datagrams until the socket is closed and queues them to the worker of their
// exporter, so that one exporter's datagrams are decoded in order (templates before data).
func (c *Collector) read(conn *net.UDPConn, proto Protocol) {
	buf := make([]byte, 65536)
	for {
		n, from, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		c.receive(from.Addr().Unmap(), proto, buf[:n], time.Now())
	}
}

// receive queues one datagram from addr, or counts it dropped.
func (c *Collector) receive(addr netip.Addr, proto Protocol, b []byte, now time.Time) {
	ex := c.exporters.get(addr, proto, now)
	if ex == nil {
		return
	}
	ex.datagrams.Add(1)
	if c.queued.Add(int64(len(b))) > int64(c.limits.QueueBytes) {
		c.queued.Add(-int64(len(b)))
		ex.dropped.Add(1)
		return
	}
	q := c.queues[maphash.Comparable(c.seed, addr)%uint64(len(c.queues))]
	select {
	case q <- datagram{ex: ex, data: append([]byte(nil), b...), proto: proto, at: now}:
	default:
		c.queued.Add(-int64(len(b)))
		ex.dropped.Add(1)
	}
}

// Close stops receiving, stores the records of what was received, and returns.
func (c *Collector) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	var errs []error
	for _, conn := range c.conns {
		errs = append(errs, conn.Close())
	}
	c.mu.Unlock()
	c.readers.Wait()
	for _, q := range c.queues {
		close(q)
	}
	c.workers.Wait()
	close(c.batches)
	c.writer.Wait()
	return errors.Join(errs...)
}
