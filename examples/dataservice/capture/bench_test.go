package capture_test

import (
	"encoding/binary"
	"syscall"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
)

// BenchmarkDecodeAndTrack decodes and tracks frames of 1,000 TCP conversations exchanging
// requests, responses and ACKs, in one goroutine: the probe's per-packet work.
func BenchmarkDecodeAndTrack(b *testing.B) {
	const convs = 1000
	frames := make([][]byte, 0, convs*4)
	eth := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x08, 0x00}
	for c := range convs {
		for k, dir := range []int{0, 1, 1, 0} { // request, response, response, ACK
			payload := []int{200, 1200, 1200, 0}[k]
			f := make([]byte, 14+20+20+payload)
			copy(f, eth)
			ip := f[14:]
			ip[0] = 0x45
			binary.BigEndian.PutUint16(ip[2:], uint16(40+payload))
			ip[9] = 6
			cl := [4]byte{10, 0, byte(c >> 8), byte(c)}
			sv := [4]byte{10, 1, 0, 1}
			sport, dport := uint16(30000+c), uint16(443)
			if dir == 1 {
				cl, sv = sv, cl
				sport, dport = dport, sport
			}
			copy(ip[12:], cl[:])
			copy(ip[16:], sv[:])
			tcp := ip[20:]
			binary.BigEndian.PutUint16(tcp, sport)
			binary.BigEndian.PutUint16(tcp[2:], dport)
			binary.BigEndian.PutUint32(tcp[4:], uint32(1+k*1200))
			binary.BigEndian.PutUint32(tcp[8:], 1)
			tcp[12] = 0x50
			tcp[13] = capture.FlagACK
			binary.BigEndian.PutUint16(tcp[14:], 512)
			frames = append(frames, f)
		}
	}
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

// cpuTime is the process's user and system CPU time, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
