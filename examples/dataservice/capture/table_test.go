package capture_test

import (
	"encoding/binary"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
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

// TestPortReuse starts a new conversation when a SYN with a new sequence number comes on the
// addresses and ports of one that is under way, and keeps a retransmitted SYN in its own.
func TestPortReuse(t *testing.T) {
	t.Parallel()
	var recs []capture.Record
	tbl := capture.NewTable(capture.Config{}, func(r capture.Record) { recs = append(recs, r) })
	cl, sv := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	send := func(at int64, fromClient bool, flags uint8, seq, ack uint32) {
		p := capture.Packet{Time: at * 1e6, Protocol: capture.ProtoTCP, Len: 40, Flags: flags,
			Seq: seq, Ack: ack, Window: 1000, Src: cl, Dst: sv, SrcPort: 50000, DstPort: 8080}
		if !fromClient {
			p.Src, p.Dst, p.SrcPort, p.DstPort = sv, cl, 8080, 50000
		}
		tbl.Packet(&p)
	}
	// mid-conversation: the server's data first, so ports decide (8080 is the server)
	send(0, false, capture.FlagACK, 1, 1)
	send(10, true, capture.FlagSYN, 100, 0) // a new connection
	send(20, true, capture.FlagSYN, 100, 0) // its retransmission
	send(30, false, capture.FlagSYN|capture.FlagACK, 500, 101)
	send(31, true, capture.FlagACK, 101, 501)
	send(40, true, capture.FlagSYN, 9000, 0) // another new connection
	tbl.Flush()
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3: %+v", len(recs), recs)
	}
	if r := recs[1]; r.Client.Packets != 3 || r.Client.Retrans != 1 || r.CT.Samples != 1 || r.Server.RTT.Sum < 9900 || r.Server.RTT.Sum > 10100 {
		t.Errorf("second connection: %+v", r)
	}
}

// TestICMPRoles makes an echo request's sender the client, whatever the addresses.
func TestICMPRoles(t *testing.T) {
	t.Parallel()
	var recs []capture.Record
	tbl := capture.NewTable(capture.Config{}, func(r capture.Record) { recs = append(recs, r) })
	hi, lo := netip.MustParseAddr("10.9.9.9"), netip.MustParseAddr("10.0.0.1")
	tbl.Packet(&capture.Packet{Protocol: capture.ProtoICMP, ICMPType: 8, Len: 84, Src: lo, Dst: hi})
	tbl.Packet(&capture.Packet{Time: 1e6, Protocol: capture.ProtoICMP, ICMPType: 0, Len: 84, Src: hi, Dst: lo})
	tbl.Flush()
	if len(recs) != 1 || recs[0].Client.IP != lo || recs[0].Client.Packets != 1 || recs[0].Server.Bytes != 84 {
		t.Fatalf("records %+v", recs)
	}
}

// TestActiveTimeout renews a conversation older than ActiveTimeout at a slice boundary: its
// open response is closed and sampled, and its roles stay.
func TestActiveTimeout(t *testing.T) {
	t.Parallel()
	var recs []capture.Record
	tbl := capture.NewTable(capture.Config{ActiveTimeout: 60e9}, func(r capture.Record) { recs = append(recs, r) })
	cl, sv := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	p := capture.Packet{Time: 1e9, Protocol: capture.ProtoTCP, Flags: capture.FlagACK, Len: 140, PayloadLen: 100,
		Seq: 1, Ack: 1, Window: 1000, Src: cl, Dst: sv, SrcPort: 50000, DstPort: 80}
	tbl.Packet(&p) // the request, at 1 s
	p.Src, p.Dst, p.SrcPort, p.DstPort, p.Ack = sv, cl, 80, 50000, 101
	for at := int64(2); at <= 152; at += 10 { // the response, 2 s to 152 s
		p.Time = at * 1e9
		tbl.Packet(&p)
		p.Seq += 100
	}
	tbl.Flush()
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	// The end of the first slice, seen with the packet at 62 s, renews the conversation, then
	// 61 s old: the response so far, 2 s to 52 s, is closed in the first slice's record; the
	// server's later data answers no request the renewed conversation saw.
	wantTiming(t, "srt", recs[0].SRT, 1)
	wantTiming(t, "dtt", recs[0].DTT, 50)
	wantTiming(t, "dtt", recs[1].DTT)
	wantTiming(t, "dtt", recs[2].DTT)
	if r := recs[2]; r.Client.IP != cl || r.Server.Packets != 4 || tbl.Stats().Conversations != 1 {
		t.Errorf("after renewal: %+v, %d conversations", r, tbl.Stats().Conversations)
	}
}

// TestBytesOnTheWire reads, from a capture file, frames whose IP header claims more than the
// frame carried (54-byte frames stating 65,535 bytes, over IPv4 and IPv6) and frames the
// snap length cut (54 bytes kept of 1,514 on the wire): a record counts what the wire carried.
func TestBytesOnTheWire(t *testing.T) {
	t.Parallel()
	cl, sv := [4]byte{10, 9, 0, 1}, [4]byte{10, 9, 0, 2}
	var frames [][]byte
	var times []int64
	var wire []int
	add := func(f []byte, w int) {
		frames = append(frames, f)
		times = append(times, 1700000040e9+int64(len(frames))*1e6)
		wire = append(wire, w)
	}
	for i := range 10 { // lying IPv4 headers, client port 40000
		f := tcpFrame(cl, sv, 40000, 80, capture.FlagACK, uint32(1+i), 1, 0)
		binary.BigEndian.PutUint16(f[14+2:], 65535)
		add(f, len(f))
	}
	for i := range 10 { // cut by a snap length of 54, client port 40001
		f := tcpFrame(cl, sv, 40001, 80, capture.FlagACK, uint32(1+1460*i), 1, 1460)
		add(f[:54], len(f))
	}
	for i := range 10 { // lying IPv6 headers, client port 40002
		add(tcp6Frame(40002, 80, uint32(1+i), 65535), 14+40+20)
	}
	path := filepath.Join(t.TempDir(), "lies.pcap")
	if err := os.WriteFile(path, pcapFileSnap(frames, times, wire), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, tbl := readRecords(t, path, capture.Config{})
	want := map[uint16]uint64{40000: 10 * 40, 40001: 10 * 1500, 40002: 10 * 60}
	got := map[uint16]uint64{}
	for _, r := range recs {
		got[r.Client.Port] += r.Client.Bytes + r.Server.Bytes
	}
	if !maps.Equal(got, want) {
		t.Errorf("bytes by client port %v, want %v", got, want)
	}
	if s := tbl.Stats(); s.Bytes != 10*(40+1500+60) {
		t.Errorf("table counted %d bytes, want %d", s.Bytes, 10*(40+1500+60))
	}
}

// tcp6Frame builds an Ethernet/IPv6/TCP frame without payload whose header states plen bytes
// of payload.
func tcp6Frame(sport, dport uint16, seq uint32, plen uint16) []byte {
	f := make([]byte, 14+40+20)
	copy(f, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x86, 0xdd})
	ip := f[14:]
	ip[0] = 0x60
	binary.BigEndian.PutUint16(ip[4:], plen)
	ip[6], ip[7] = capture.ProtoTCP, 64
	copy(ip[8:], netip.MustParseAddr("2001:db8::1").AsSlice())
	copy(ip[24:], netip.MustParseAddr("2001:db8::2").AsSlice())
	tcp := ip[40:]
	binary.BigEndian.PutUint16(tcp, sport)
	binary.BigEndian.PutUint16(tcp[2:], dport)
	binary.BigEndian.PutUint32(tcp[4:], seq)
	tcp[12], tcp[13] = 0x50, capture.FlagACK
	return f
}
