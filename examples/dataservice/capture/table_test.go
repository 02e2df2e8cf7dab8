package capture_test

import (
	"net/netip"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
)

// TestSYNFloodBounded sends SYNs to random ports: the table stays within its bound, evicts
// and counts, and loses no packet from the records.
func TestSYNFloodBounded(t *testing.T) {
	t.Parallel()
	var packets uint64
	tbl := capture.NewTable(capture.Config{MaxConversations: 100}, func(r capture.Record) {
		packets += r.Client.Packets + r.Server.Packets
	})
	p := capture.Packet{Protocol: capture.ProtoTCP, Flags: capture.FlagSYN, Len: 40,
		Src: netip.MustParseAddr("203.0.113.66"), Dst: netip.MustParseAddr("10.0.0.1"), SrcPort: 4444}
	const n = 10000
	for i := range n {
		p.Time = int64(i) * 1e5
		p.DstPort = uint16(i*7919) | 1
		tbl.Packet(&p)
		if s := tbl.Stats(); s.Active > 100 {
			t.Fatalf("%d conversations in a table of 100", s.Active)
		}
	}
	tbl.Flush()
	s := tbl.Stats()
	if s.Evicted == 0 || s.Conversations != n || packets != n {
		t.Fatalf("stats %+v, %d packets in records; want evictions and all %d packets", s, packets, n)
	}
}

// TestIdleTimeout ends a quiet conversation: its next packet starts another.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	var recs []capture.Record
	tbl := capture.NewTable(capture.Config{IdleTimeout: 30e9}, func(r capture.Record) { recs = append(recs, r) })
	p := capture.Packet{Protocol: capture.ProtoUDP, Len: 100, SrcPort: 5353, DstPort: 53,
		Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2")}
	for _, at := range []int64{1, 2, 200} {
		p.Time = at * 1e9
		tbl.Packet(&p)
	}
	tbl.Advance(400e9)
	if s := tbl.Stats(); s.Conversations != 2 || s.Active != 0 || len(recs) != 2 {
		t.Fatalf("stats %+v, %d records; want 2 conversations ended", s, len(recs))
	}
	if recs[0].Server.Port != 53 || recs[0].Client.Packets != 2 || recs[0].Time != 0 || recs[1].Time != 180 {
		t.Fatalf("records %+v", recs)
	}
}
