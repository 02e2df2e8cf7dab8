package capture_test

import (
	"bytes"
	"context"
	"fmt"
	"log"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

func Example() {
	// A capture of one HTTP exchange, as a pcap file would hold it (capture.OpenFile reads
	// one from disk; capture.OpenInterface captures live).
	file := exampleCapture()
	src, err := capture.NewReader(bytes.NewReader(file))
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()

	tbl := capture.NewTable(capture.Config{}, func(r capture.Record) {
		ms := func(t records.Timing) string {
			m, ok := t.Seconds()
			if !ok {
				return "null"
			}
			return fmt.Sprintf("%.0f ms", m*1000)
		}
		fmt.Printf("%v:%d -> %v:%d, %d+%d packets\n", r.Client.IP, r.Client.Port, r.Server.IP,
			r.Server.Port, r.Client.Packets, r.Server.Packets)
		fmt.Printf("server.rtt %s, client.rtt %s, ct %s, srt %s, dtt %s\n", ms(r.Server.RTT),
			ms(r.Client.RTT), ms(r.CT), ms(r.SRT), ms(r.DTT))
	})
	p := &capture.Probe{Source: src, Table: tbl}
	if err := p.Run(context.Background()); err != nil { // to the end of the file, then flushed
		log.Fatal(err)
	}
	// Output:
	// 10.0.0.1:40000 -> 10.0.0.2:80, 4+4 packets
	// server.rtt 40 ms, client.rtt 2 ms, ct 42 ms, srt 150 ms, dtt 10 ms
}

// exampleCapture is a handshake, a request, a two-packet response and the client's ACK.
func exampleCapture() []byte {
	c, s := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}
	const syn, ack, psh = capture.FlagSYN, capture.FlagACK, capture.FlagPSH
	t0 := int64(1700000040e9)
	ms := func(m int64) int64 { return t0 + m*1e6 }
	frames := [][]byte{
		tcpFrame(c, s, 40000, 80, syn, 0, 0, 0),
		tcpFrame(s, c, 80, 40000, syn|ack, 0, 1, 0),
		tcpFrame(c, s, 40000, 80, ack, 1, 1, 0),
		tcpFrame(c, s, 40000, 80, psh|ack, 1, 1, 100),
		tcpFrame(s, c, 80, 40000, ack, 1, 101, 0),
		tcpFrame(s, c, 80, 40000, ack, 1, 101, 1000),
		tcpFrame(s, c, 80, 40000, psh|ack, 1001, 101, 500),
		tcpFrame(c, s, 40000, 80, ack, 101, 1501, 0),
	}
	return pcapFile(frames, []int64{ms(0), ms(40), ms(42), ms(50), ms(90), ms(200), ms(210), ms(212)})
}
