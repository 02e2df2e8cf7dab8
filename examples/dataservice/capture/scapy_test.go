package capture_test

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// readRecords runs a probe over a capture file and returns its records.
func readRecords(t *testing.T, file string, cfg capture.Config) ([]capture.Record, *capture.Table) {
	t.Helper()
	all, tbl := readAllRecords(t, file, cfg)
	var recs []capture.Record
	for _, r := range all {
		if r.Layer == records.LayerTransport { // the layers' records have their own tests
			recs = append(recs, r)
		}
	}
	return recs, tbl
}

// readAllRecords is readRecords with the records of every layer.
func readAllRecords(t *testing.T, file string, cfg capture.Config) ([]capture.Record, *capture.Table) {
	t.Helper()
	src, err := capture.OpenFile(file)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var recs []capture.Record
	tbl := capture.NewTable(cfg, func(r capture.Record) { recs = append(recs, r) })
	p := &capture.Probe{Source: src, Table: tbl}
	if err := p.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p.Stats.Malformed != 0 {
		t.Errorf("%d malformed packets", p.Stats.Malformed)
	}
	return recs, tbl
}

// near says whether two durations in seconds agree within a microsecond (pcap's resolution).
func near(a, b float64) bool { return math.Abs(a-b) < 2e-6 }

// seconds is a Timing's sum of microseconds in seconds.
func seconds(us uint64) float64 { return float64(us) / 1e6 }

// wantTiming checks a timing's samples: count and each sample's sum.
func wantTiming(t *testing.T, name string, got records.Timing, samples ...float64) {
	t.Helper()
	sum := 0.0
	for _, s := range samples {
		sum += s
	}
	if got.Samples != uint64(len(samples)) || !near(seconds(got.Sum), sum) || got.Hist.Count() != got.Samples {
		t.Errorf("%s: %d samples summing to %.6f s (histogram %d), want %d summing to %.6f s",
			name, got.Samples, seconds(got.Sum), got.Hist.Count(), len(samples), sum)
	}
}

func TestConversationMetrics(t *testing.T) {
	t.Parallel()
	recs, tbl := readRecords(t, scapyPcap(t, "handshakeAndGet"), capture.Config{})
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1: %+v", len(recs), recs)
	}
	r := recs[0]
	if r.Time != 1700000040 || r.Protocol != capture.ProtoTCP {
		t.Errorf("time %d protocol %d", r.Time, r.Protocol)
	}
	if r.Client.IP.String() != "10.0.0.1" || r.Client.Port != 40000 || r.Server.Port != 80 {
		t.Errorf("client %v:%d server %v:%d", r.Client.IP, r.Client.Port, r.Server.IP, r.Server.Port)
	}
	if r.Client.Packets != 6 || r.Server.Packets != 5 {
		t.Errorf("packets %d/%d, want 6/5", r.Client.Packets, r.Server.Packets)
	}
	get := len("GET / HTTP/1.1\r\nHost: Example.COM:8080\r\nAccept: */*\r\n\r\n")
	if want := uint64(6*40 + get); r.Client.Bytes != want {
		t.Errorf("client bytes %d, want %d", r.Client.Bytes, want)
	}
	// server.rtt: SYN→SYN-ACK, the GET→its pure ACK, the client's FIN→the server's FIN-ACK.
	wantTiming(t, "server.rtt", r.Server.RTT, 0.040, 0.040, 0.040)
	// client.rtt: SYN-ACK→ACK, the response's last segment→the ACK of both, FIN→ACK.
	wantTiming(t, "client.rtt", r.Client.RTT, 0.001, 0.001, 0.001)
	wantTiming(t, "ct", r.CT, 0.041)
	wantTiming(t, "srt", r.SRT, 0.182-0.042)
	wantTiming(t, "dtt", r.DTT, 0.001)
	if r.Client.Retrans+r.Server.Retrans+r.Resets+r.Client.ZeroWindows+r.Server.ZeroWindows != 0 {
		t.Errorf("retrans %d/%d resets %d zero windows %d/%d, want none", r.Client.Retrans,
			r.Server.Retrans, r.Resets, r.Client.ZeroWindows, r.Server.ZeroWindows)
	}
	if r.ServerName != "example.com" {
		t.Errorf("server name %q, want the Host header's example.com", r.ServerName)
	}
	if s := tbl.Stats(); s.Conversations != 1 || s.Active != 0 || s.Records != 1 || s.Packets != 11 {
		t.Errorf("stats %+v", s)
	}
}

// TestFileFormats reads the same packets from pcap, pcap with nanosecond timestamps and
// pcapng: the records are the same.
func TestFileFormats(t *testing.T) {
	t.Parallel()
	want, _ := readRecords(t, scapyPcap(t, "handshakeAndGet"), capture.Config{})
	for _, name := range []string{"handshakeAndGet.ng", "handshakeAndGet.nano"} {
		got, _ := readRecords(t, scapyPcap(t, name), capture.Config{})
		if len(got) != 1 {
			t.Fatalf("%s: %d records", name, len(got))
		}
		// Times agree within the microsecond that pcap rounds them to.
		g, w := got[0], want[0]
		for _, tm := range []struct{ g, w *records.Timing }{{&g.CT, &w.CT}, {&g.SRT, &w.SRT},
			{&g.DTT, &w.DTT}, {&g.Client.RTT, &w.Client.RTT}, {&g.Server.RTT, &w.Server.RTT}} {
			if tm.g.Samples != tm.w.Samples || !near(seconds(tm.g.Sum), seconds(tm.w.Sum)) {
				t.Errorf("%s: timing %+v, want %+v", name, *tm.g, *tm.w)
			}
			*tm.g, *tm.w = records.Timing{}, records.Timing{}
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: record %+v, want %+v", name, g, w)
		}
	}
	if _, err := capture.OpenFile(scapyPrelude); err == nil {
		t.Error("opened a file that does not exist")
	}
	for _, bad := range []string{"", "not a capture file", "\xd4\xc3\xb2\xa1"} {
		if _, err := capture.NewReader(strings.NewReader(bad)); err == nil {
			t.Errorf("NewReader(%q) accepted", bad)
		}
	}
}

func TestHandshakeNotSeen(t *testing.T) {
	t.Parallel()
	// The capture starts mid-conversation, with the server (port 443) speaking first.
	recs, _ := readRecords(t, scapyPcap(t, "midConversation"), capture.Config{})
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if r.Client.Port != 51000 || r.Server.Port != 443 || r.Server.IP.String() != "198.51.100.7" {
		t.Fatalf("roles: client %v:%d server %v:%d", r.Client.IP, r.Client.Port, r.Server.IP, r.Server.Port)
	}
	wantTiming(t, "ct", r.CT)
	wantTiming(t, "client.rtt", r.Client.RTT, 0.003)
	wantTiming(t, "server.rtt", r.Server.RTT, 0.020)
	// The server's first data answers no request: no srt; the request at 1.0 is answered at 1.5.
	wantTiming(t, "srt", r.SRT, 0.5)
	wantTiming(t, "dtt", r.DTT, 0) // one-packet response, closed by the reset
	if r.Resets != 1 {
		t.Errorf("resets %d", r.Resets)
	}
}

func TestRetransmittedSYN(t *testing.T) {
	t.Parallel()
	recs, _ := readRecords(t, scapyPcap(t, "retransmittedSYN"), capture.Config{})
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	// server.rtt pairs the SYN-ACK with the latest SYN, client.rtt the ACK with the latest
	// SYN-ACK; ct runs from the first SYN.
	wantTiming(t, "server.rtt", r.Server.RTT, 0.030)
	wantTiming(t, "client.rtt", r.Client.RTT, 0.002)
	wantTiming(t, "ct", r.CT, 2.032)
	if r.Client.Retrans != 1 || r.Server.Retrans != 1 {
		t.Errorf("retrans %d/%d, want 1/1", r.Client.Retrans, r.Server.Retrans)
	}
}

func TestOutOfOrderAndRetransmissions(t *testing.T) {
	t.Parallel()
	recs, _ := readRecords(t, scapyPcap(t, "outOfOrder"), capture.Config{})
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if r.Server.Retrans != 2 || r.Client.Retrans != 0 {
		t.Errorf("retrans client %d server %d, want 0 and 2", r.Client.Retrans, r.Server.Retrans)
	}
	wantTiming(t, "srt", r.SRT, 0.100-0.042)
	wantTiming(t, "dtt", r.DTT, 0.300-0.100) // closed at the end of the capture
}

func TestPipelinedRequests(t *testing.T) {
	t.Parallel()
	recs, _ := readRecords(t, scapyPcap(t, "pipelined"), capture.Config{})
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	// Both pipelined requests are one request (the client's data before the server's), so
	// one srt from the second's packet, and one dtt over both responses.
	wantTiming(t, "srt", r.SRT, 0.300-0.101, 1.250-1.000)
	wantTiming(t, "dtt", r.DTT, 0.050, 0)
	if r.ServerName != "pipe.example" || r.Server.ZeroWindows != 1 {
		t.Errorf("server name %q zero windows %d", r.ServerName, r.Server.ZeroWindows)
	}
}

func TestIPv6AndDNSName(t *testing.T) {
	t.Parallel()
	recs, tbl := readRecords(t, scapyPcap(t, "ipv6DNS"), capture.Config{})
	var tcp *capture.Record
	for i := range recs {
		if recs[i].Protocol == capture.ProtoTCP {
			tcp = &recs[i]
		}
	}
	if tcp == nil {
		t.Fatalf("no TCP record among %+v", recs)
	}
	if tcp.ServerName != "v6.example" || tcp.Server.IP.String() != "2001:db8::2" {
		t.Errorf("server %v named %q, want v6.example from the DNS answer", tcp.Server.IP, tcp.ServerName)
	}
	wantTiming(t, "server.rtt", tcp.Server.RTT, 0.025)
	wantTiming(t, "client.rtt", tcp.Client.RTT, 0.001)
	// with the hop-by-hop and destination options headers, 16 bytes of them
	if tcp.Client.Bytes != 2*(40+16+20) {
		t.Errorf("client bytes %d", tcp.Client.Bytes)
	}
	if s := tbl.Stats(); s.Fragments != 3 || s.LaterFragments != 2 || s.Names != 1 {
		t.Errorf("fragments %d (later %d), names %d; want 3 (2), 1", s.Fragments, s.LaterFragments, s.Names)
	}
}

func TestQinQ(t *testing.T) {
	t.Parallel()
	recs, _ := readRecords(t, scapyPcap(t, "qinq"), capture.Config{})
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	wantTiming(t, "server.rtt", recs[0].Server.RTT, 0.010)
	wantTiming(t, "ct", recs[0].CT, 0.011)
}

func TestSeveralSlices(t *testing.T) {
	t.Parallel()
	// A download from 10 s to 130 s after T0: a record in each of three one-minute slices.
	recs, _ := readRecords(t, scapyPcap(t, "severalSlices"), capture.Config{})
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	for i, want := range []struct {
		time          int64
		client, serve uint64
	}{{1700000040, 1, 2}, {1700000100, 0, 2}, {1700000160, 1, 1}} {
		r := recs[i]
		if r.Time != want.time || r.Client.Packets != want.client || r.Server.Packets != want.serve {
			t.Errorf("record %d: time %d packets %d/%d, want %d %d/%d", i, r.Time,
				r.Client.Packets, r.Server.Packets, want.time, want.client, want.serve)
		}
	}
	wantTiming(t, "srt", recs[0].SRT, 0.5)
	wantTiming(t, "dtt", recs[2].DTT, 130-10.5) // the whole download, when it ends
	wantTiming(t, "dtt", recs[0].DTT)
}
