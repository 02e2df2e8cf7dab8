package collect

import (
	"net/netip"
	"slices"
	"testing"
	"time"
)

// TestStatus checks the status of two exporters: one sending NetFlow v5 and v9 (a template,
// then data, then data whose template is unknown), one sending sFlow and a datagram that does
// not decode; their counters, protocols, times and flows per second as the last minute moves
// on, and the totals.
func TestStatus(t *testing.T) {
	t.Parallel()
	exporterB := netip.MustParseAddr("2001:db8::9")
	c := New(&memStore{}, nil, Limits{Workers: 1})
	flow := v5Record{src: client4, dst: server4, srcPort: 51234, dstPort: 443, proto: 6, bytes: 700, packets: 5, first: 2000, last: 9000}
	c.receive(exporterA, NetFlow, v5(10_000, 1700000040, 0, flow, flow, flow), now)
	c.receive(exporterA, NetFlow, v9(2, 6000, 1700000040, 0, set(0, templateRecord(256, v9Fields...)),
		set(256, v9Data(client4, server4, 50000, 443, 100, 1, 0, 0))), now.Add(time.Second))
	c.receive(exporterA, NetFlow, v9(1, 6000, 1700000040, 0, set(257, v9Data(client4, server4, 50000, 443, 100, 1, 0, 0))), now.Add(time.Second))
	sample := sflowSample{rate: 1, header: frame(client4, server4, 6, 51234, 443, 100)}
	c.receive(exporterB, SFlow, sflowDatagram(sample, sample), now.Add(30*time.Second))
	c.receive(exporterB, SFlow, []byte{0, 0, 0, 5, 1}, now.Add(40*time.Second))
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	st := c.Status(now.Add(30 * time.Second))
	if !st.Enabled || st.MaxExporters != 1000 || len(st.Listen) != 0 || len(st.Exporters) != 2 {
		t.Fatalf("status %+v", st)
	}
	a, b := st.Exporters[0], st.Exporters[1]
	if a.Address != "192.0.2.1" || !slices.Equal(a.Protocols, []string{"netflow-v5", "netflow-v9"}) ||
		!a.FirstSeen.Equal(now) || !a.LastSeen.Equal(now.Add(time.Second)) ||
		a.Datagrams != 3 || a.Flows != 4 || a.Templates != 1 || a.SetsWithoutTemplate != 1 || a.DecodeErrors != 0 || a.Dropped != 0 {
		t.Errorf("exporter A %+v", a)
	}
	// B sent garbage after its sFlow: it lists sflow-v5 once, and counts the error.
	if b.Address != "2001:db8::9" || !slices.Equal(b.Protocols, []string{"sflow-v5"}) || b.Datagrams != 2 ||
		b.Flows != 2 || b.DecodeErrors != 1 || !b.FirstSeen.Equal(now.Add(30*time.Second)) || !b.LastSeen.Equal(now.Add(40*time.Second)) {
		t.Errorf("exporter B %+v", b)
	}
	// Flows per second: over the 31 seconds since A was first seen, over B's first second.
	for _, tt := range []struct {
		at     time.Duration
		ra, rb float64
	}{
		{30 * time.Second, 4.0 / 31, 2},
		{40 * time.Second, 4.0 / 41, 2.0 / 11},
		{60 * time.Second, 1.0 / 60, 2.0 / 31}, // A's v5 flows (second 0) have left the minute
		{61 * time.Second, 0, 2.0 / 32},
		{90 * time.Second, 0, 0},
	} {
		st := c.Status(now.Add(tt.at))
		if got := st.Exporters[0].FlowsPerSecond; got != tt.ra {
			t.Errorf("at %v: A's flows per second %v, want %v", tt.at, got, tt.ra)
		}
		if got := st.Exporters[1].FlowsPerSecond; got != tt.rb {
			t.Errorf("at %v: B's flows per second %v, want %v", tt.at, got, tt.rb)
		}
		if got := st.Totals.FlowsPerSecond; got != tt.ra+tt.rb {
			t.Errorf("at %v: total flows per second %v, want %v", tt.at, got, tt.ra+tt.rb)
		}
	}
	tot := st.Totals
	if tot.Exporters != 2 || tot.Datagrams != 5 || tot.Flows != 6 || tot.DecodeErrors != 1 || tot.RecordsStored == 0 || tot.StoreErrors != 0 {
		t.Errorf("totals %+v", tot)
	}
}

// TestStatusSocketsAndBounds checks that the status names the collector's sockets, and counts
// datagrams dropped by the queue and those of exporters beyond the bound.
func TestStatusSocketsAndBounds(t *testing.T) {
	t.Parallel()
	d := v5(10_000, 1700000040, 0, v5Record{src: client4, dst: server4, srcPort: 1, dstPort: 2, proto: 6, bytes: 1, packets: 1})
	c := New(&memStore{}, nil, Limits{Workers: 1, MaxExporters: 2})
	at, err := c.Listen(SFlow, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		c.receive(netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}), NetFlow, d, now)
	}
	waitFlows(t, c, 2) // exporters with recent flows keep their places
	for i := range 3 {
		c.receive(netip.AddrFrom4([4]byte{192, 0, 2, byte(2 + i)}), NetFlow, d, now)
	}
	c.Close()
	st := c.Status(now)
	if len(st.Listen) != 1 || st.Listen[0].Protocol != "sflow" || st.Listen[0].Address != at.String() {
		t.Errorf("listen %+v, want sflow on %s", st.Listen, at)
	}
	if st.MaxExporters != 2 || len(st.Exporters) != 2 || st.Totals.RefusedDatagrams != 3 {
		t.Errorf("status %+v", st)
	}

	c = New(&memStore{}, nil, Limits{Workers: 1, QueueBytes: len(d) - 1})
	c.receive(exporterA, NetFlow, d, now)
	c.receive(exporterA, NetFlow, d, now)
	c.Close()
	st = c.Status(now)
	if st.Totals.Dropped != 2 || st.Exporters[0].Dropped != 2 || len(st.Exporters[0].Protocols) != 0 {
		t.Errorf("status %+v", st)
	}
}

// TestFlowRateRing checks that a second's counter is reused a minute later, not added to.
func TestFlowRateRing(t *testing.T) {
	t.Parallel()
	var r flowRate
	r.add(1000, 5)
	r.add(1000, 5)
	if got := r.perSecond(1059, 1000); got != 10.0/60 {
		t.Errorf("flows per second %v, want 10/60", got)
	}
	r.add(1060, 3) // the same slot, a minute later
	if got := r.perSecond(1060, 0); got != 3.0/60 {
		t.Errorf("after the slot was reused: %v, want 3/60", got)
	}
}
