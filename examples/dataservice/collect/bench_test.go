package collect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
	"github.com/fnapi/fnapi/internal/testutil"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/netsampler/goflow2/v2/decoders/netflow"
)

// benchConversations is how many conversations the benchmark capture holds: softflowd exports
// two flows for each.
const benchConversations = 50_000

var captured sync.Map // NetFlow version -> [][]byte

// softflowdDatagrams returns the datagrams softflowd exports for a capture of
// benchConversations TCP conversations (one packet each way), captured once per version.
func softflowdDatagrams(b *testing.B, version int) [][]byte {
	if d, ok := captured.Load(version); ok {
		return d.([][]byte)
	}
	bin := testenv.Need(b, "softflowd", "softflowd")
	dir := b.TempDir()
	start := time.Now().Add(-time.Hour)
	pkts := make([]testenv.Packet, 0, 2*benchConversations)
	for i := range benchConversations {
		c := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		s := netip.AddrFrom4([4]byte{192, 0, 2, byte(i % 7)})
		at := start.Add(time.Duration(i) * time.Millisecond)
		pkts = append(pkts,
			testenv.Packet{Time: at, Src: c, Dst: s, Protocol: 6, SrcPort: uint16(1024 + i%60000), DstPort: 443, Payload: 100},
			testenv.Packet{Time: at.Add(time.Microsecond), Src: s, Dst: c, Protocol: 6, SrcPort: 443, DstPort: uint16(1024 + i%60000), Payload: 1000})
	}
	pcap := filepath.Join(dir, "bench.pcap")
	testenv.WritePcap(b, pcap, pkts)
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadBuffer(64 << 20)
	var out [][]byte
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 65536)
		for {
			_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
			n, err := conn.Read(buf)
			if err != nil {
				return
			}
			out = append(out, bytes.Clone(buf[:n]))
		}
	}()
	cmd := exec.Command(bin, "-r", pcap, "-n", conn.LocalAddr().String(), "-v", fmt.Sprint(version), "-m", "200000",
		"-p", filepath.Join(dir, "pid"))
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("softflowd: %v\n%s", err, msg)
	}
	<-done
	captured.Store(version, out)
	return out
}

// benchFlows counts the flows of the datagrams with the collector's decoder.
func benchFlows(datagrams [][]byte) int {
	ex := &exporter{addr: exporterA}
	l := Limits{}
	l.defaults()
	n := 0
	var flows []Flow
	for _, d := range datagrams {
		flows, _ = decodeNetFlow(d, &templateStore{ex: ex, now: time.Now(), limits: &l}, flows[:0])
		n += len(flows)
	}
	return n
}

// BenchmarkGoflow2Decode is goflow2's own decoder (netflow.DecodeMessageVersion with its
// template system) over softflowd's datagrams: the decoding alone, no mapping, no store.
func BenchmarkGoflow2Decode(b *testing.B) {
	for _, v := range []int{9, 10} {
		b.Run(fmt.Sprint("v", v), func(b *testing.B) {
			datagrams := softflowdDatagrams(b, v)
			ts := netflow.CreateTemplateSystem()
			flows := 0
			cpu0 := cpuTime()
			b.ResetTimer()
			for b.Loop() {
				flows = 0
				for _, d := range datagrams {
					var p9 netflow.NFv9Packet
					var p10 netflow.IPFIXPacket
					_ = netflow.DecodeMessageVersion(bytes.NewBuffer(d), ts, &p9, &p10)
					for _, fs := range append(p9.FlowSets, p10.FlowSets...) {
						if data, ok := fs.(netflow.DataFlowSet); ok {
							flows += len(data.Records)
						}
					}
				}
			}
			b.ReportMetric(float64(flows*b.N)/b.Elapsed().Seconds(), "flows/s")
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(flows*b.N), "cpu-ns/flow")
			b.ReportMetric(float64(flows), "flows/pass")
		})
	}
}

// BenchmarkCollectorDecode is the collector's own path over the same datagrams without sockets
// or store: goflow2's per-set decoder, the mapping to records, validation and the batch.
func BenchmarkCollectorDecode(b *testing.B) {
	for _, v := range []int{9, 10} {
		b.Run(fmt.Sprint("v", v), func(b *testing.B) {
			datagrams := softflowdDatagrams(b, v)
			c := &Collector{limits: Limits{}}
			c.limits.defaults()
			ex := &exporter{addr: exporterA}
			flows := 0
			cpu0 := cpuTime()
			b.ResetTimer()
			for b.Loop() {
				bt := newBatch(c.limits.BatchSize)
				var fl []Flow
				var recs []records.Record
				before := ex.flows.Load()
				for _, d := range datagrams {
					fl, recs = c.decode(datagram{ex: ex, data: d, proto: NetFlow, at: time.Now()}, bt, fl[:0], recs[:0])
					if bt.len() >= c.limits.BatchSize {
						bt = newBatch(c.limits.BatchSize)
					}
				}
				flows = int(ex.flows.Load() - before)
			}
			b.ReportMetric(float64(flows*b.N)/b.Elapsed().Seconds(), "flows/s")
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(flows*b.N), "cpu-ns/flow")
		})
	}
}

// BenchmarkCollectorStored replays softflowd's datagrams over loopback to a collector storing
// into DuckDB, as fast as one sender goes (rate 0) or paced at 100,000 flows/s, and reports the
// flows stored per second (from the first datagram sent until every record is stored) and the
// datagrams dropped.
func BenchmarkCollectorStored(b *testing.B) {
	for _, v := range []int{9, 10} {
		for _, rate := range []int{0, 100_000} {
			b.Run(fmt.Sprintf("v%d/rate=%d", v, rate), func(b *testing.B) {
				datagrams := softflowdDatagrams(b, v)
				flows := benchFlows(datagrams)
				var elapsed time.Duration
				var dropped, stored uint64
				cpu0 := cpuTime()
				b.ResetTimer()
				for b.Loop() {
					d, s, st := replay(b, datagrams, flows, rate)
					elapsed, dropped, stored = elapsed+d, dropped+s, stored+st
				}
				b.ReportMetric(float64(flows*b.N)/elapsed.Seconds(), "flows/s")
				b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(flows*b.N), "cpu-ns/flow")
				b.ReportMetric(float64(dropped)/float64(b.N), "dropped/pass")
				b.ReportMetric(float64(stored)/float64(b.N), "records/pass")
			})
		}
	}
}

// cpuTime returns the CPU time (user and system) the process has used: the collector, DuckDB
// and the sender together.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// replay sends datagrams to a new collector (rate flows/s, 0: unpaced) and returns the time
// until all is stored, the datagrams dropped and the records stored.
func replay(b *testing.B, datagrams [][]byte, flows, rate int) (time.Duration, uint64, uint64) {
	store, err := duckdb.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	c := New(store, nil, Limits{})
	addr, err := c.Listen(NetFlow, "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	conn, err := net.Dial("udp", addr.String())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	perDatagram := time.Duration(0)
	if rate > 0 {
		perDatagram = time.Duration(float64(time.Second) * float64(flows) / float64(rate) / float64(len(datagrams)))
	}
	start := time.Now()
	for i, d := range datagrams {
		if perDatagram > 0 {
			if wait := time.Until(start.Add(time.Duration(i) * perDatagram)); wait > 0 {
				time.Sleep(wait) // a sleep, not a wait: it paces the datagrams to the rate under test
			}
		}
		if _, err := conn.Write(d); err != nil && !errors.Is(err, net.ErrClosed) {
			b.Fatal(err)
		}
	}
	// Wait until every datagram is received (the kernel may still hold some), then store.
	ex := func() *exporter { return c.exporters.m[netip.MustParseAddr("127.0.0.1")] }
	// The kernel may drop some: after 30 s the benchmark stores what came.
	deadline := time.Now().Add(30 * time.Second)
	testutil.Until(b, time.Minute, "every datagram received", func() error {
		c.exporters.mu.Lock()
		e := ex()
		c.exporters.mu.Unlock()
		if e != nil && e.datagrams.Load() >= uint64(len(datagrams)) || time.Now().After(deadline) {
			return nil
		}
		return errors.New("not yet")
	})
	if err := c.Close(); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	e := ex()
	lostInKernel := uint64(len(datagrams)) - e.datagrams.Load()
	return elapsed, e.dropped.Load() + lostInKernel, c.stats.stored.Load()
}

// BenchmarkVendorDecode is the collector's decode path (as BenchmarkCollectorDecode) over v9
// datagrams of 20 flows, each of a conversation of its own (500 datagrams, then again):
// plain flows, and the same with nProbe's five latency and retransmission fields or Cisco
// AVC's fourteen ART fields, whose measures the records gain, or with nProbe's HTTP fields,
// which make a record of layer http each.
func BenchmarkVendorDecode(b *testing.B) {
	for _, tc := range []struct {
		name   string
		fields []efield
		extra  []byte
	}{
		{"plain", nil, nil},
		{"nprobe", nprobeFields, cat(u32(5), u32(2), u32(12), u32(40), u32(180))},
		{"cisco", ciscoFields, cat(u32(3), u32(1), u32(2), u32(30), u32(20), u32(10), u32(100), u32(130),
			u32(4), u32(400), u32(250), u32(50), u32(4), u32(1000))},
		{"nprobe-http", []efield{{180, 32, penNtop}, {360, 8, penNtop}, {181, 2, penNtop}, {187, 16, penNtop}},
			cat([]byte("/v1/items/9f86d081884c7d65?a=1\x00\x00"), []byte("GET\x00\x00\x00\x00\x00"), u16(200), []byte("shop.example\x00\x00\x00\x00"))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var datagrams [][]byte
			for i := range 500 {
				var data []byte
				for j := range 20 {
					client := netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)})
					data = append(data, v9Data(client, server4, uint16(50000+j), 443, 1000, 10, 3, 4)...)
					data = append(data, tc.extra...)
				}
				datagrams = append(datagrams, v9(20, 6000, 1700000040, 0, set(256, data)))
			}
			tpl := v9(1, 6000, 1700000040, 0, set(0, templateRecord(256, asV9(append(plainFields(), tc.fields...))...)))
			c := &Collector{limits: Limits{}}
			c.limits.defaults()
			ex := &exporter{addr: exporterA}
			at := time.Unix(1700000100, 0)
			bt := newBatch(c.limits.BatchSize)
			fl, recs := c.decode(datagram{ex: ex, data: tpl, proto: NetFlow, at: at}, bt, nil, nil)
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				fl, recs = c.decode(datagram{ex: ex, data: datagrams[i%len(datagrams)], proto: NetFlow, at: at}, bt, fl[:0], recs[:0])
				if bt.len() >= c.limits.BatchSize {
					bt = newBatch(c.limits.BatchSize)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(20*b.N), "cpu-ns/flow")
		})
	}
}
