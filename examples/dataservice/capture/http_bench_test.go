package capture_test

import (
	"fmt"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
)

// BenchmarkHTTPMix decodes and tracks the packets of a mix of 1,000 conversations (HTTP, TLS
// and DNS, httpMixFrames) as BenchmarkDecodeAndTrack does, with the HTTP decoder (http) and
// without (transport): what the HTTP layer costs.
func BenchmarkHTTPMix(b *testing.B) {
	frames, adv := httpMixFrames(1000)
	for _, mode := range []string{"transport", "http"} {
		b.Run(mode, func(b *testing.B) {
			var recs int
			tbl := capture.NewTable(capture.Config{}, func(capture.Record) { recs++ })
			if mode == "transport" {
				capture.NoHTTP(tbl)
			}
			var p capture.Packet
			b.ReportAllocs()
			cpu0 := cpuTime()
			i := 0
			for b.Loop() {
				f := frames[i%len(frames)]
				round := uint32(i / len(frames))
				p.Time = int64(i) * 1000
				if err := capture.Decode(capture.LinkEthernet, f, &p); err != nil {
					b.Fatal(err)
				}
				// each round continues the streams: the next request, the next response
				a := adv[i%len(frames)]
				p.Seq += round * a[0]
				p.Ack += round * a[1]
				tbl.Packet(&p)
				i++
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/packet")
			if mode == "http" && b.N > 4*len(frames) && tbl.Stats().HTTPRecords == 0 {
				b.Fatalf("no HTTP record: %+v", tbl.Stats())
			}
		})
	}
}

// httpMixFrames returns the frames of the mix and, for each, how far its sequence and
// acknowledgment numbers advance each round: of every three conversations one HTTP/1.1 on a
// keep-alive connection (a GET, a response of 16,800 bytes in 12 segments, an ACK of every
// second), one opaque of the same shape (TLS's application data, to port 443), one DNS query
// and its answer.
func httpMixFrames(convs int) ([][]byte, [][2]uint32) {
	const segs, seg = 12, 1400
	var frames [][]byte
	var adv [][2]uint32
	add := func(f []byte, seq, ack uint32) { frames = append(frames, f); adv = append(adv, [2]uint32{seq, ack}) }
	sv := [4]byte{10, 1, 0, 1}
	dns := seedFrames()[2:]
	for c := range convs {
		cl := [4]byte{10, 0, byte(c >> 8), byte(c)}
		port := uint16(30000 + c)
		var req, head []byte
		switch c % 3 {
		case 0:
			req = []byte(fmt.Sprintf("GET /api/items/%d?page=2 HTTP/1.1\r\nHost: shop.example\r\nUser-Agent: bench\r\nAccept: */*\r\n\r\n", c))
			head = []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", segs*seg))
		case 1:
			req = make([]byte, 200)
		default:
			for _, f := range dns {
				add(append([]byte(nil), f...), 0, 0)
			}
			continue
		}
		sport := uint16(80)
		if head == nil {
			sport = 443
		}
		q, r := uint32(len(req)), uint32(len(head)+segs*seg)
		add(payloadFrame(tcpFrame(cl, sv, port, sport, capture.FlagACK|capture.FlagPSH, 1, 1, len(req)), req), q, r)
		seq := uint32(1)
		for i := range segs {
			n := seg
			if i == 0 {
				n += len(head)
			}
			f := tcpFrame(sv, cl, sport, port, capture.FlagACK, seq, 1+q, n)
			if i == 0 {
				payloadFrame(f[:len(f)-seg], head)
			}
			add(f, r, q)
			seq += uint32(n)
			if i%2 == 1 {
				add(tcpFrame(cl, sv, port, sport, capture.FlagACK, 1+q, seq, 0), q, r)
			}
		}
	}
	return frames, adv
}

// payloadFrame writes payload at the end of frame f.
func payloadFrame(f, payload []byte) []byte {
	copy(f[len(f)-len(payload):], payload)
	return f
}
