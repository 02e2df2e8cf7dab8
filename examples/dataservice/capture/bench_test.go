package capture_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"syscall"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
)

// BenchmarkDecodeAndTrack decodes and tracks frames of 1,000 TCP conversations exchanging
// requests, responses and ACKs, in one goroutine: the probe's per-packet work.
func BenchmarkDecodeAndTrack(b *testing.B) {
	frames := benchFrames(1000, 1200)
	var recs int
	tbl := capture.NewTable(capture.Config{}, func(capture.Record) { recs++ })
	var p capture.Packet
	b.ReportAllocs()
	cpu0 := cpuTime()
	i := 0
	for b.Loop() {
		f := frames[i%len(frames)]
		// sequence numbers advance each round so that data is new, not retransmitted
		round := uint32(i / len(frames))
		p.Time = int64(i) * 1000 // 1 µs apart: a million packets a second of capture
		if err := capture.Decode(capture.LinkEthernet, f, &p); err != nil {
			b.Fatal(err)
		}
		p.Seq += round * 4000
		p.Ack += round * 4000
		tbl.Packet(&p)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "packets/s")
	// CPU time is the steadier figure on a shared machine: wall time counts waits for a core.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/packet")
}

// BenchmarkFile reads a pcap file of 200,000 packets (from memory) through the whole probe:
// file reader, decoder, table.
func BenchmarkFile(b *testing.B) {
	one := benchFrames(1000, 100)
	var frames [][]byte
	var times []int64
	for i := range 200_000 {
		f := append([]byte(nil), one[i%len(one)]...)
		round := uint32(i / len(one))
		binary.BigEndian.PutUint32(f[14+20+4:], binary.BigEndian.Uint32(f[14+20+4:])+round*4000)
		binary.BigEndian.PutUint32(f[14+20+8:], binary.BigEndian.Uint32(f[14+20+8:])+round*4000)
		frames = append(frames, f)
		times = append(times, 1700000040e9+int64(i)*1000)
	}
	file := pcapFile(frames, times)
	b.ReportAllocs()
	b.SetBytes(int64(len(file)))
	cpu0 := cpuTime()
	for b.Loop() {
		src, _ := capture.NewReader(bytes.NewReader(file))
		p := &capture.Probe{Source: src, Table: capture.NewTable(capture.Config{}, func(capture.Record) {})}
		if err := p.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	n := float64(b.N) * float64(len(frames))
	b.ReportMetric(n/b.Elapsed().Seconds(), "packets/s")
	b.ReportMetric(float64(cpuTime()-cpu0)/n, "cpu-ns/packet")
}

// benchFrames returns the frames of convs TCP conversations, each a request, two response
// segments of size bytes and an ACK.
func benchFrames(convs, size int) [][]byte {
	frames := make([][]byte, 0, convs*4)
	sv := [4]byte{10, 1, 0, 1}
	for c := range convs {
		cl := [4]byte{10, 0, byte(c >> 8), byte(c)}
		port := uint16(30000 + c)
		frames = append(frames,
			tcpFrame(cl, sv, port, 443, capture.FlagACK, 1, 1, 200),
			tcpFrame(sv, cl, 443, port, capture.FlagACK, 1, 201, size),
			tcpFrame(sv, cl, 443, port, capture.FlagACK, uint32(1+size), 201, size),
			tcpFrame(cl, sv, port, 443, capture.FlagACK, 201, uint32(1+2*size), 0))
	}
	return frames
}

// cpuTime is the process's user and system CPU time, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkNewConversations feeds an empty table 50,000 short TCP conversations (a handshake, a
// request, a response and its ACK: 300,000 packets), as a burst of new clients or a replay
// brings them: the table's growth, the map of keys and each conversation's start.
func BenchmarkNewConversations(b *testing.B) {
	const convs = 50_000
	sv := [4]byte{10, 1, 0, 1}
	frames := make([][]byte, 0, convs*6)
	for c := range convs {
		cl := [4]byte{10, 0, byte(c >> 8), byte(c)}
		port := uint16(10000 + c)
		frames = append(frames,
			tcpFrame(cl, sv, port, 80, capture.FlagSYN, 1000, 0, 0),
			tcpFrame(sv, cl, 80, port, capture.FlagSYN|capture.FlagACK, 5000, 1001, 0),
			tcpFrame(cl, sv, port, 80, capture.FlagACK, 1001, 5001, 0),
			tcpFrame(cl, sv, port, 80, capture.FlagACK|capture.FlagPSH, 1001, 5001, 100),
			tcpFrame(sv, cl, 80, port, capture.FlagACK|capture.FlagPSH, 5001, 1101, 100),
			tcpFrame(cl, sv, port, 80, capture.FlagACK, 1101, 5101, 0))
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	var p capture.Packet
	for b.Loop() {
		tbl := capture.NewTable(capture.Config{}, func(capture.Record) {})
		for i, f := range frames {
			if err := capture.Decode(capture.LinkEthernet, f, &p); err != nil {
				b.Fatal(err)
			}
			p.Time = 1700000040e9 + int64(i)*1000
			tbl.Packet(&p)
		}
		if tbl.Stats().Active != convs {
			b.Fatalf("%d conversations in the table, want %d", tbl.Stats().Active, convs)
		}
	}
	n := float64(b.N) * float64(len(frames))
	b.ReportMetric(n/b.Elapsed().Seconds(), "packets/s")
	b.ReportMetric(float64(cpuTime()-cpu0)/n, "cpu-ns/packet")
}
