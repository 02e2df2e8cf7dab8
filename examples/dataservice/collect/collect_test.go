package collect

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/internal/testutil"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// memStore keeps what the collector stores.
type memStore struct {
	mu   sync.Mutex
	recs []records.Record
}

func (s *memStore) Ingest(_ context.Context, recs []records.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs = append(s.recs, recs...)
	return nil
}

var (
	exporterA = netip.MustParseAddr("192.0.2.1")
	client4   = netip.MustParseAddr("10.0.0.5")
	server4   = netip.MustParseAddr("93.184.216.34")
)

// collectAll feeds datagrams from exporterA (received at now) to a collector and returns what
// it stored, and the collector (closed).
func collectAll(t *testing.T, limits Limits, proto Protocol, now time.Time, datagrams ...[]byte) ([]records.Record, *Collector) {
	t.Helper()
	s := &memStore{}
	limits.Workers = 1
	c := New(s, nil, limits)
	for _, d := range datagrams {
		c.receive(exporterA, proto, d, now)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	return s.recs, c
}

// sum adds up the records per side.
func sum(recs []records.Record) (cb, cp, sb, sp uint64) {
	for _, r := range recs {
		cb, cp, sb, sp = cb+r.Client.Bytes, cp+r.Client.Packets, sb+r.Server.Bytes, sp+r.Server.Packets
	}
	return
}

func metric(t *testing.T, c *Collector, line string) {
	t.Helper()
	var b strings.Builder
	c.WriteMetrics(&b)
	if !strings.Contains(b.String(), line+"\n") {
		t.Errorf("metrics lack %q:\n%s", line, b.String())
	}
}

// The template of the v9 and IPFIX tests: IPv4 flows with uptimes (v9) or milliseconds (IPFIX).
var (
	v9Fields = []field{{8, 4}, {12, 4}, {7, 2}, {11, 2}, {4, 1}, {1, 4}, {2, 4}, {10, 2}, {14, 2}, {22, 4}, {21, 4}}
	now      = time.Unix(1700000100, 0)
)

func v9Data(src, dst netip.Addr, srcPort, dstPort uint16, bytes, packets uint32, in, out uint16) []byte {
	s, d := src.As4(), dst.As4()
	return cat(s[:], d[:], u16(srcPort), u16(dstPort), []byte{6}, u32(bytes), u32(packets), u16(in), u16(out),
		u32(1000), u32(5000)) // first and last: uptime 1 s and 5 s
}

// TestV5Sampling checks that NetFlow v5's header sampling interval scales the counts, and the
// mapping: server by port, counts to the sender, interfaces swapped for the server's flow, both
// directions in one record.
func TestV5Sampling(t *testing.T) {
	t.Parallel()
	d := v5(10_000, 1700000040, 1<<14|100, // mode 1, interval 100
		v5Record{src: client4, dst: server4, srcPort: 51234, dstPort: 443, proto: 6, bytes: 700, packets: 5, first: 2000, last: 9000, in: 1, out: 2},
		v5Record{src: server4, dst: client4, srcPort: 443, dstPort: 51234, proto: 6, bytes: 5000, packets: 4, first: 2000, last: 9000, in: 2, out: 1})
	recs, c := collectAll(t, Limits{}, NetFlow, now, d)
	want := records.Record{Time: 1699999980, Protocol: 6, Application: "https", Exporter: exporterA, InIf: 1, OutIf: 2,
		Client: records.Endpoint{IP: client4, Port: 51234, Bytes: 70_000, Packets: 500},
		Server: records.Endpoint{IP: server4, Port: 443, Bytes: 500_000, Packets: 400}}
	if len(recs) != 1 || !reflect.DeepEqual(recs[0], want) {
		t.Fatalf("stored %+v\nwant %+v", recs, want)
	}
	metric(t, c, `collector_flows_total{exporter="192.0.2.1",protocol="netflow"} 2`)
}

// TestV9OptionsSampling checks sampling rates from v9 options data: per domain, and per
// sampler for a record naming its sampler; and that every set is read although the header
// counts fewer.
func TestV9OptionsSampling(t *testing.T) {
	t.Parallel()
	optsTpl := set(1, v9OptionsTemplate(300, []field{{1, 4}}, []field{{34, 4}}))
	samplerTpl := set(1, v9OptionsTemplate(301, []field{{1, 4}}, []field{{48, 1}, {50, 4}}))
	opts := cat(set(300, cat(u32(0), u32(10))), set(301, cat(u32(0), []byte{7}, u32(1000))))
	tpl := set(0, cat(templateRecord(256, v9Fields...), templateRecord(257, append(v9Fields, field{48, 1})...)))
	data := set(256, v9Data(client4, server4, 50000, 443, 100, 1, 3, 4))
	sampled := set(257, append(v9Data(client4, server4, 50001, 443, 100, 1, 3, 4), 7))
	d := v9(1, 6000, 1700000040, 9, optsTpl, samplerTpl, tpl, opts, data, sampled) // count 1: softflowd-like
	recs, _ := collectAll(t, Limits{}, NetFlow, now, d)
	slices.SortFunc(recs, func(a, b records.Record) int { return int(a.Client.Port) - int(b.Client.Port) })
	if len(recs) != 2 || recs[0].Client.Bytes != 1000 || recs[0].Client.Packets != 10 ||
		recs[1].Client.Bytes != 100_000 || recs[1].Client.Packets != 1000 {
		t.Fatalf("stored %+v, want 1000 bytes (rate 10) and 100,000 bytes (sampler 7, rate 1000)", recs)
	}
	if recs[0].Time != 1699999980 || recs[0].InIf != 3 || recs[0].OutIf != 4 {
		t.Errorf("record %+v: want time 1699999980 (flow 1700000035-39), interfaces 3 and 4", recs[0])
	}
}

// TestIPFIXIPv6PacketInterval checks IPFIX with IPv6 addresses, absolute milliseconds and a
// sampling rate from samplingPacketInterval and samplingPacketSpace.
func TestIPFIXIPv6PacketInterval(t *testing.T) {
	t.Parallel()
	src, dst := netip.MustParseAddr("2001:db8::10"), netip.MustParseAddr("2001:db8::1")
	fields := []field{{27, 16}, {28, 16}, {7, 2}, {11, 2}, {4, 1}, {1, 8}, {2, 8}, {152, 8}, {153, 8}}
	s, d := src.As16(), dst.As16()
	rec := cat(s[:], d[:], u16(5353), u16(53), []byte{17}, u64(300), u64(2), u64(1700000030_000), u64(1700000030_500))
	msg := ipfix(1700000040, 5,
		set(3, ipfixOptionsTemplate(400, []field{{149, 4}}, []field{{305, 4}, {306, 4}})),
		set(400, cat(u32(5), u32(1), u32(99))), // 1 in 100
		set(2, templateRecord(500, fields...)),
		set(500, rec))
	recs, _ := collectAll(t, Limits{}, NetFlow, now, msg)
	want := records.Record{Time: 1699999980, Protocol: 17, Application: "dns", Exporter: exporterA,
		Client: records.Endpoint{IP: src, Port: 5353, Bytes: 30_000, Packets: 200},
		Server: records.Endpoint{IP: dst, Port: 53}}
	if len(recs) != 1 || !reflect.DeepEqual(recs[0], want) {
		t.Fatalf("stored %+v\nwant %+v", recs, want)
	}
}

// TestTemplateLate checks that data before its template is counted, and that the same data
// after it is stored.
func TestTemplateLate(t *testing.T) {
	t.Parallel()
	data := set(256, v9Data(client4, server4, 50000, 443, 100, 1, 0, 0))
	early := v9(1, 6000, 1700000040, 0, data)
	late := v9(2, 6000, 1700000040, 0, set(0, templateRecord(256, v9Fields...)), data)
	recs, c := collectAll(t, Limits{}, NetFlow, now, early, late)
	if _, cp, _, _ := sum(recs); cp != 1 {
		t.Errorf("stored %+v, want the data after its template only", recs)
	}
	metric(t, c, `collector_sets_without_template_total{exporter="192.0.2.1",protocol="netflow"} 1`)
	metric(t, c, `collector_templates{exporter="192.0.2.1",protocol="netflow"} 1`)
}

// TestTemplateBoundsAndExpiry checks the bound on templates per exporter, the refusal of a
// template without size, and expiry.
func TestTemplateBoundsAndExpiry(t *testing.T) {
	t.Parallel()
	s := &memStore{}
	c := New(s, nil, Limits{Workers: 1, MaxTemplates: 2, TemplateTTL: time.Minute})
	tpls := v9(0, 6000, 1700000040, 0, set(0, cat(templateRecord(256, v9Fields...), templateRecord(257, v9Fields...),
		templateRecord(258, v9Fields...))), set(0, templateRecord(259, field{1, 0})))
	c.receive(exporterA, NetFlow, tpls, now)
	c.receive(exporterA, NetFlow, v9(1, 6000, 1700000040, 0, set(258, v9Data(client4, server4, 1, 2, 3, 4, 0, 0))), now)
	c.receive(exporterA, NetFlow, v9(1, 6000, 1700000040, 0, set(256, v9Data(client4, server4, 1, 2, 3, 4, 0, 0))), now.Add(2*time.Minute))
	c.Close()
	if len(s.recs) != 0 {
		t.Errorf("stored %+v; want nothing", s.recs)
	}
	metric(t, c, `collector_templates_refused_total{exporter="192.0.2.1",protocol="netflow"} 2`)
	metric(t, c, `collector_sets_without_template_total{exporter="192.0.2.1",protocol="netflow"} 2`)
}

// TestExporterAndQueueBounds checks that datagrams past QueueBytes are dropped and counted,
// and that new exporters are refused and counted when MaxExporters exporters with recent flows
// are known.
func TestExporterAndQueueBounds(t *testing.T) {
	t.Parallel()
	d := v5(10_000, 1700000040, 0, v5Record{src: client4, dst: server4, srcPort: 1, dstPort: 2, proto: 6, bytes: 1, packets: 1})
	c := New(&memStore{}, nil, Limits{Workers: 1, QueueBytes: len(d) - 1})
	c.receive(exporterA, NetFlow, d, now)
	c.Close()
	metric(t, c, `collector_datagrams_dropped_total{exporter="192.0.2.1",protocol="netflow"} 1`)

	c = New(&memStore{}, nil, Limits{Workers: 1, MaxExporters: 2})
	for i := range 2 {
		c.receive(netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}), NetFlow, d, now)
	}
	waitFlows(t, c, 2)
	for i := range 3 {
		c.receive(netip.AddrFrom4([4]byte{192, 0, 2, byte(2 + i)}), NetFlow, d, now)
	}
	c.Close()
	metric(t, c, "collector_exporters 2")
	metric(t, c, "collector_exporters_refused_datagrams_total 3")
	metric(t, c, "collector_exporters_evicted_total 0")
}

// waitFlows waits until the collector's exporters have decoded n flows in all.
func waitFlows(t *testing.T, c *Collector, n uint64) {
	t.Helper()
	testutil.Until(t, testutil.Wait, fmt.Sprintf("%d flows decoded", n), func() error {
		if got := c.Status(now).Totals.Flows; got < n {
			return fmt.Errorf("%d decoded", got)
		}
		return nil
	})
}

// TestSFlowSampling checks sFlow flow samples: one packet times the sampling rate each, bytes
// of the IP packet, both directions in one record.
func TestSFlowSampling(t *testing.T) {
	t.Parallel()
	d := sflowDatagram(
		sflowSample{rate: 512, in: 1, out: 2, header: frame(client4, server4, 6, 51234, 443, 1500)},
		sflowSample{rate: 512, in: 2, out: 1, header: frame(server4, client4, 6, 443, 51234, 40)},
		sflowSample{rate: 256, in: 0x40000001, header: frame(netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("2001:db8::2"), 17, 123, 123, 76)})
	recs, _ := collectAll(t, Limits{}, SFlow, now, d)
	slices.SortFunc(recs, func(a, b records.Record) int { return a.Client.IP.Compare(b.Client.IP) })
	want := []records.Record{
		{Time: 1700000100, Protocol: 6, Application: "https", Exporter: exporterA, InIf: 1, OutIf: 2,
			Client: records.Endpoint{IP: client4, Port: 51234, Bytes: 1500 * 512, Packets: 512},
			Server: records.Endpoint{IP: server4, Port: 443, Bytes: 40 * 512, Packets: 512}},
		{Time: 1700000100, Protocol: 17, Application: "ntp", Exporter: exporterA,
			Client: records.Endpoint{IP: netip.MustParseAddr("2001:db8::2"), Port: 123},
			Server: records.Endpoint{IP: netip.MustParseAddr("2001:db8::1"), Port: 123, Bytes: 76 * 256, Packets: 256}},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Fatalf("stored\n%+v\nwant\n%+v", recs, want)
	}
}

// TestSpread checks that a flow over several slices is spread in proportion to its time in
// each and adds up exactly, and that a long one keeps its last maxSpread slices.
func TestSpread(t *testing.T) {
	t.Parallel()
	f := Flow{Start: 30_000, End: 150_000, Protocol: 6, Src: client4, Dst: server4, SrcPort: 5000, DstPort: 80, Bytes: 1001, Packets: 7}
	recs := appendRecords(nil, &f, exporterA, 60)
	var times []int64
	var bytes []uint64
	for _, r := range recs {
		times, bytes = append(times, r.Time), append(bytes, r.Client.Bytes)
	}
	if !slices.Equal(times, []int64{0, 60, 120}) || !slices.Equal(bytes, []uint64{250, 500, 251}) {
		t.Errorf("spread over %v: %v bytes; want [0 60 120]: [250 500 251]", times, bytes)
	}
	if _, cp, _, _ := sum(recs); cp != 7 {
		t.Errorf("packets add up to %d, want 7", cp)
	}
	long := Flow{Start: 0, End: 1000 * 60 * 600, Protocol: 6, Src: client4, Dst: server4, Bytes: 6000, Packets: 600}
	recs = appendRecords(nil, &long, exporterA, 60)
	if cb, cp, sb, sp := sum(recs); len(recs) > maxSpread || cb+sb != 6000 || cp+sp != 600 {
		t.Errorf("a 10-hour flow gave %d records adding up to %d bytes, %d packets", len(recs), cb+sb, cp+sp)
	}
}

// TestServerSide checks which side serves.
func TestServerSide(t *testing.T) {
	t.Parallel()
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	for _, tt := range []struct {
		srcPort, dstPort uint16
		src, dst         netip.Addr
		dstServes        bool
	}{
		{51234, 443, a, b, true}, {443, 51234, a, b, false}, {50000, 8080, a, b, true},
		{53, 53, a, b, false}, {53, 53, b, a, true}, {0, 0, b, a, true},
	} {
		f := Flow{Src: tt.src, Dst: tt.dst, SrcPort: tt.srcPort, DstPort: tt.dstPort}
		if got := dstIsServer(&f); got != tt.dstServes {
			t.Errorf("%v:%d -> %v:%d: destination serves = %v", tt.src, tt.srcPort, tt.dst, tt.dstPort, got)
		}
	}
}

// TestNewExporterLogged checks that each new exporter gets one log line, however many
// datagrams it sends.
func TestNewExporterLogged(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	c := New(&memStore{}, zap.New(core), Limits{Workers: 1})
	d := v5(10_000, 1700000040, 0, v5Record{src: client4, dst: server4, srcPort: 1, dstPort: 2, proto: 6, bytes: 1, packets: 1})
	for _, from := range []string{"192.0.2.1", "192.0.2.1", "2001:db8::1", "192.0.2.1"} {
		c.receive(netip.MustParseAddr(from), NetFlow, d, now)
	}
	c.Close()
	var got []string
	for _, e := range logs.FilterMessage("new flow exporter").All() {
		got = append(got, e.ContextMap()["exporter"].(string))
	}
	if !slices.Equal(got, []string{"192.0.2.1", "2001:db8::1"}) {
		t.Errorf("new exporters logged: %v", got)
	}
}

// failingStore refuses every batch.
type failingStore struct{}

func (failingStore) Ingest(context.Context, []records.Record) error { return errors.New("disk full") }

// TestStoreErrorCounted checks that a batch the store refuses is counted with its records.
func TestStoreErrorCounted(t *testing.T) {
	t.Parallel()
	c := New(failingStore{}, nil, Limits{Workers: 1})
	c.receive(exporterA, NetFlow, v5(10_000, 1700000040, 0,
		v5Record{src: client4, dst: server4, srcPort: 50000, dstPort: 443, proto: 6, bytes: 1, packets: 1, first: 9000, last: 9000},
		v5Record{src: server4, dst: client4, srcPort: 443, dstPort: 50001, proto: 6, bytes: 1, packets: 1, first: 9000, last: 9000}), now)
	c.Close()
	metric(t, c, "collector_store_errors_total 1")
	metric(t, c, "collector_records_lost_total 2")
	metric(t, c, "collector_records_stored_total 0")
}

// TestNearUptime checks IPFIX uptimes: plain, wrapped after 49.7 days, and "negative" (before
// the exporter's reference, as softflowd sends for a replayed capture).
func TestNearUptime(t *testing.T) {
	t.Parallel()
	const boot, wrap = int64(1_700_000_000_000), int64(1) << 32
	for _, tt := range []struct {
		uptime uint64
		export int64
		want   int64
	}{
		{5_000, boot + 6_000, boot + 5_000},
		{5_000, boot + 3*wrap + 6_000, boot + 3*wrap + 5_000},
		{uint64(wrap - 2_000), boot + 1_000, boot - 2_000},
	} {
		if got := nearUptime(boot, tt.uptime, tt.export); got != tt.want {
			t.Errorf("nearUptime(boot, %d, boot%+d) = boot%+d, want boot%+d", tt.uptime, tt.export-boot, got-boot, tt.want-boot)
		}
	}
}

// gatedStore holds each Ingest call, the nth until gates[n] closes, and counts the calls in
// flight.
type gatedStore struct {
	calls, inflight atomic.Int32
	gates           [3]chan struct{}
}

func (s *gatedStore) Ingest(context.Context, []records.Record) error {
	n := s.calls.Add(1) - 1
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	<-s.gates[min(n, 2)]
	return nil
}

// TestWaitingBatchesStoredAtOnce: while the store takes a batch, the batches that wait are
// then stored at once (so DuckDB commits them in one transaction), not one after the other.
func TestWaitingBatchesStoredAtOnce(t *testing.T) {
	t.Parallel()
	s := &gatedStore{}
	for i := range s.gates {
		s.gates[i] = make(chan struct{})
	}
	c := New(s, nil, Limits{Workers: 1, BatchSize: 1})
	defer c.Close()
	defer close(s.gates[1])
	defer close(s.gates[2])
	d := v5(10_000, 1700000040, 0, v5Record{src: client4, dst: server4, srcPort: 1, dstPort: 2, proto: 6, bytes: 1, packets: 1})
	c.receive(exporterA, NetFlow, d, now)
	until(t, "the first batch being stored", func() bool { return s.inflight.Load() == 1 })
	c.receive(exporterA, NetFlow, d, now)
	c.receive(exporterA, NetFlow, d, now)
	until(t, "two batches waiting", func() bool { return len(c.batches) == 2 })
	close(s.gates[0])
	until(t, "both stored at once", func() bool { return s.inflight.Load() == 2 })
}

// until waits until ok holds.
func until(t *testing.T, what string, ok func() bool) {
	t.Helper()
	testutil.Until(t, testutil.Wait, what, func() error {
		if !ok() {
			return errors.New("not yet")
		}
		return nil
	})
}
