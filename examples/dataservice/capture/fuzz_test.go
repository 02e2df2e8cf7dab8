package capture_test

import (
	"bytes"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// FuzzDecode feeds arbitrary frames, of any length on the wire, to the decoder: it must never
// panic, what it reads must lie within the frame, and the bytes it counts within what the
// wire carried.
func FuzzDecode(f *testing.F) {
	for _, s := range seedFrames() {
		f.Add(uint16(capture.LinkEthernet), s, uint32(0))
		f.Add(uint16(capture.LinkEthernet), s[:40], uint32(len(s)))
	}
	f.Add(uint16(capture.LinkRaw), []byte{0x60, 0, 0, 0, 0, 8, 44, 64}, uint32(0))
	f.Fuzz(func(t *testing.T, lt uint16, frame []byte, wire uint32) {
		p := capture.Packet{FrameLen: int(wire)}
		if err := capture.Decode(capture.LinkType(lt), frame, &p); err != nil {
			return
		}
		if len(p.Payload) > len(frame) || p.PayloadLen < 0 {
			t.Fatalf("payload %d bytes (%d stated) from a %d-byte frame", len(p.Payload), p.PayloadLen, len(frame))
		}
		if p.Len < 0 || p.Len > max(int(wire), len(frame)) || p.Len > 65535+40 {
			t.Fatalf("%d bytes counted of a %d-byte frame (%d on the wire)", p.Len, len(frame), wire)
		}
	})
}

// FuzzTable feeds arbitrary packets, several per input, to a small conversation table: it
// must never panic, stay within its bound, and account for every packet.
func FuzzTable(f *testing.F) {
	seeds := seedFrames()
	for _, s := range seeds {
		f.Add(s)
	}
	var both []byte // a DNS query and its answer, in the input's form
	for _, s := range seeds[2:] {
		both = append(append(both, byte(len(s)-1)), s...)
	}
	f.Add(both)
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs []capture.Record
		tbl := capture.NewTable(capture.Config{MaxConversations: 4}, func(r capture.Record) { recs = append(recs, r) })
		var p capture.Packet
		var n uint64
		for i := 0; len(data) > 0 && i < 64; i++ {
			l := min(int(data[0])+1, len(data)-1)
			frame := data[1 : 1+l]
			data = data[1+l:]
			p.Time = int64(i) * 7e9 // crosses one-minute slices
			if capture.Decode(capture.LinkEthernet, frame, &p) != nil {
				continue
			}
			tbl.Packet(&p)
			if s := tbl.Stats(); s.Active > 4 {
				t.Fatalf("%d conversations in a table of 4", s.Active)
			}
			if !p.LaterFragment {
				n++
			}
		}
		tbl.Flush()
		var got uint64
		for _, r := range recs {
			if r.Layer == records.LayerTransport {
				got += r.Client.Packets + r.Server.Packets
			}
		}
		if got != n {
			t.Fatalf("records count %d packets, %d were tracked", got, n)
		}
	})
}

// seedFrames returns a few well-formed Ethernet frames: a TCP SYN, a SYN-ACK, a DNS query and
// its answer, over IPv4.
func seedFrames() [][]byte {
	eth := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x08, 0x00}
	ip := func(proto byte, l4 []byte) []byte {
		n := 20 + len(l4)
		h := []byte{0x45, 0, byte(n >> 8), byte(n), 0, 0, 0, 0, 64, proto, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2}
		return append(append(append([]byte{}, eth...), h...), l4...)
	}
	tcp := func(flags byte) []byte {
		return []byte{0x9c, 0x40, 0, 80, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, flags, 0xff, 0xff, 0, 0, 0, 0}
	}
	dns := []byte{0, 53, 0x9c, 0x40, 0, 41, 0, 0, // UDP
		0, 1, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0, // header
		1, 'a', 2, 'n', 'l', 0, 0, 1, 0, 1, // a.nl A IN
		0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 0, 0, 2}
	query := []byte{0x9c, 0x40, 0, 53, 0, 25, 0, 0, // UDP
		0, 1, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, // header
		1, 'A', 2, 'n', 'l', 0, 0, 1, 0, 1} // A.nl A IN
	q := ip(17, query)
	q[14+15], q[14+19] = 2, 1 // from 10.0.0.2, to 10.0.0.1: the answer's client and server
	return [][]byte{ip(6, tcp(0x02)), ip(6, tcp(0x12)), q, ip(17, dns)}
}

// FuzzReader reads arbitrary bytes as a pcap or pcapng file: errors, never a panic, and
// frames within the bounds.
func FuzzReader(f *testing.F) {
	f.Add(pcapFile(seedFrames(), []int64{1e9, 2e9, 3e9, 4e9}))
	f.Add([]byte{0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 28, 0, 0, 0,
		1, 0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		src, err := capture.NewReader(bytes.NewReader(b))
		if err != nil {
			return
		}
		var fr capture.Frame
		for range 1000 {
			if src.Next(&fr) != nil {
				return
			}
			if len(fr.Data) > capture.MaxFrame {
				t.Fatalf("a frame of %d bytes", len(fr.Data))
			}
		}
	})
}
