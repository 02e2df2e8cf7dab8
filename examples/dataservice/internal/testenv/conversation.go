package testenv

import (
	"net/netip"
	"path/filepath"
	"testing"
	"time"
)

// Conversation writes a capture of one TCP conversation between 10.1.0.1:40000 (the client)
// and 10.2.0.1:443, n packets 100 ms apart from start alternating directions, the i-th with
// 10*i bytes of payload, to a file in a temporary folder of t, and returns the file's path and
// the packets. Softflowd exports it as two flows (one per direction), pmacctd as n samples.
func Conversation(t testing.TB, start time.Time, n int) (string, []Packet) {
	t.Helper()
	client, server := netip.MustParseAddr("10.1.0.1"), netip.MustParseAddr("10.2.0.1")
	var pkts []Packet
	for i := range n {
		p := Packet{Time: start.Add(time.Duration(i) * 100 * time.Millisecond), Protocol: 6,
			Src: client, Dst: server, SrcPort: 40000, DstPort: 443, Payload: 10 * i}
		if i%2 == 1 {
			p.Src, p.Dst, p.SrcPort, p.DstPort = p.Dst, p.Src, p.DstPort, p.SrcPort
		}
		pkts = append(pkts, p)
	}
	path := filepath.Join(t.TempDir(), "conversation.pcap")
	WritePcap(t, path, pkts)
	return path, pkts
}
