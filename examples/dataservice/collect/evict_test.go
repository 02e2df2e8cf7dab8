package collect

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"go.uber.org/zap"
)

// TestSpoofedFloodEvictsItself checks that a flood of spoofed sources cannot push out an
// exporter whose flows decoded recently, nor fill the table for good: each new source takes the
// place of the least recently heard of those without flows.
func TestSpoofedFloodEvictsItself(t *testing.T) {
	t.Parallel()
	c := New(&memStore{}, nil, Limits{Workers: 1, MaxExporters: 100})
	flow := v5(10_000, 1700000040, 0, v5Record{src: client4, dst: server4, srcPort: 50000, dstPort: 443, proto: 6, bytes: 1, packets: 1})
	c.receive(exporterA, NetFlow, flow, now)
	waitFlows(t, c, 1)
	// 1,000 spoofed sources, each a template and then garbage, within a second.
	tpl := v9(1, 6000, 1700000040, 0, set(0, templateRecord(256, v9Fields...)))
	for i := range 1000 {
		at := now.Add(time.Duration(i) * time.Millisecond)
		from := netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)})
		c.receive(from, NetFlow, tpl, at)
		c.receive(from, NetFlow, []byte{0, 9, 0}, at)
	}
	// A new router, after the flood, is heard; and so is the first exporter, still.
	router := netip.MustParseAddr("203.0.113.7")
	later := now.Add(2 * time.Second)
	c.receive(router, NetFlow, flow, later)
	c.receive(exporterA, NetFlow, flow, later)
	c.Close()
	st := c.Status(later)
	got := map[string]uint64{}
	for _, e := range st.Exporters {
		got[e.Address] = e.Flows
	}
	if got["192.0.2.1"] != 2 || got["203.0.113.7"] != 1 || len(st.Exporters) > 100 {
		t.Errorf("after the flood: %d exporters; 192.0.2.1 decoded %d flows (want 2), 203.0.113.7 %d (want 1)",
			len(st.Exporters), got["192.0.2.1"], got["203.0.113.7"])
	}
	if st.Totals.RefusedDatagrams != 0 {
		t.Errorf("%d datagrams refused; want none: the flood makes room for itself", st.Totals.RefusedDatagrams)
	}
	// Every spoofed source no longer known was evicted, and counted.
	metric(t, c, fmt.Sprint("collector_exporters_evicted_total ", 1000-(len(st.Exporters)-2)))
}

// BenchmarkExporterFlood is the cost of a datagram from a new address when the exporter table
// (1,000 places, the default) is full of exporters without flows: the eviction's scan and sort,
// spread over the quarter of the table it frees.
func BenchmarkExporterFlood(b *testing.B) {
	t := exporterTable{m: map[netip.Addr]*exporter{}, max: 1000, ttl: time.Hour, log: zap.NewNop()}
	i := uint32(0)
	cpu0 := cpuTime()
	for b.Loop() {
		i++
		addr := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		if t.get(addr, NetFlow, now.Add(time.Duration(i))) == nil {
			b.Fatal("refused")
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(t.evicted.Load())/float64(b.N), "evicted/op")
}
