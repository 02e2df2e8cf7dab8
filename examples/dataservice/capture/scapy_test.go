package capture_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
)

// captures are the scapy snippets of the tests' capture files, by name: each appends to the
// list pkts (scapy imported; T0, a multiple of 60 where slices start, and the helper
// tcp(src, dst, sport, dport, flags, seq, ack, load, t, ip, win, ether) defined).
var captures = map[string]string{
	"handshakeAndGet":  handshakeAndGet,
	"midConversation":  midConversation,
	"retransmittedSYN": retransmittedSYN,
	"outOfOrder":       outOfOrder,
	"pipelined":        pipelined,
	"ipv6DNS":          ipv6DNS,
	"qinq":             qinq,
	"severalSlices":    severalSlices,
	// the same packets in the other formats: pcapng, and pcap with nanoseconds
	"handshakeAndGet.ng":   handshakeAndGet,
	"handshakeAndGet.nano": handshakeAndGet,
}

const scapyPrelude = `import json, os, sys
from scapy.all import *
T0 = 1700000040
def tcp(src, dst, sport, dport, flags, seq, ack, load=b"", t=0.0, ip=IP, win=65535, ether=None):
    p = ip(src=src, dst=dst)/TCP(sport=sport, dport=dport, flags=flags, seq=seq, ack=ack, window=win)
    if load:
        p = p/Raw(load)
    p = (ether or Ether())/p
    p.time = T0 + t
    return p
for name, snippet in json.load(sys.stdin).items():
    pkts = []
    exec(snippet)
    out = os.path.join(sys.argv[1], name + ".pcap")
    if name.endswith(".ng"):
        wrpcapng(out, pkts)
    else:
        wrpcap(out, pkts, nano=name.endswith(".nano"))
`

var scapy struct {
	once sync.Once
	dir  string
	err  error
}

// scapyPcap returns the path of the capture file made from captures[name]. Scapy runs once
// for all of them (starting it takes seconds), into a directory TestMain removes.
func scapyPcap(t *testing.T, name string) string {
	t.Helper()
	const py = "/usr/bin/python3"
	scapy.once.Do(func() {
		if err := exec.Command(py, "-c", "import scapy.all").Run(); err != nil {
			scapy.err = fmt.Errorf("scapy through %s is missing (apt-get install python3-scapy): %v", py, err)
			return
		}
		if scapy.dir, scapy.err = os.MkdirTemp("", "capture-test"); scapy.err != nil {
			return
		}
		in, _ := json.Marshal(captures)
		cmd := exec.Command(py, "-c", scapyPrelude, scapy.dir)
		cmd.Stdin = bytes.NewReader(in)
		if b, err := cmd.CombinedOutput(); err != nil {
			scapy.err = fmt.Errorf("scapy: %v\n%s", err, b)
		}
	})
	if scapy.err != nil {
		if os.Getenv("CI") == "true" || !strings.Contains(scapy.err.Error(), "missing") {
			t.Fatal(scapy.err)
		}
		t.Skip(scapy.err)
	}
	return filepath.Join(scapy.dir, name+".pcap")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if scapy.dir != "" {
		os.RemoveAll(scapy.dir)
	}
	os.Exit(code)
}

// readRecords runs a probe over a capture file and returns its records.
func readRecords(t *testing.T, file string, cfg capture.Config) ([]capture.Record, *capture.Table) {
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

// wantTiming checks a timing's samples: count and each sample's sum.
func wantTiming(t *testing.T, name string, got capture.Timing, samples ...float64) {
	t.Helper()
	sum := 0.0
	for _, s := range samples {
		sum += s
	}
	if got.Count != uint64(len(samples)) || !near(got.Sum, sum) || got.Hist.Count() != got.Count {
		t.Errorf("%s: %d samples summing to %.6f s (histogram %d), want %d summing to %.6f s",
			name, got.Count, got.Sum, got.Hist.Count(), len(samples), sum)
	}
}

const handshakeAndGet = `
C, S = "10.0.0.1", "10.0.0.2"
get = b"GET / HTTP/1.1\r\nHost: Example.COM:8080\r\nAccept: */*\r\n\r\n"
n = len(get)
pkts += [
  tcp(C, S, 40000, 80, "S", 100, 0, t=0.000),
  tcp(S, C, 80, 40000, "SA", 500, 101, t=0.040),
  tcp(C, S, 40000, 80, "A", 101, 501, t=0.041),
  tcp(C, S, 40000, 80, "PA", 101, 501, get, t=0.042),
  tcp(S, C, 80, 40000, "A", 501, 101+n, t=0.082),
  tcp(S, C, 80, 40000, "A", 501, 101+n, b"x"*1000, t=0.182),
  tcp(S, C, 80, 40000, "PA", 1501, 101+n, b"x"*1000, t=0.183),
  tcp(C, S, 40000, 80, "A", 101+n, 2501, t=0.184),
  tcp(C, S, 40000, 80, "FA", 101+n, 2501, t=0.200),
  tcp(S, C, 80, 40000, "FA", 2501, 102+n, t=0.240),
  tcp(C, S, 40000, 80, "A", 102+n, 2502, t=0.241),
]
`

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
		for _, tm := range []struct{ g, w *capture.Timing }{{&g.CT, &w.CT}, {&g.SRT, &w.SRT},
			{&g.DTT, &w.DTT}, {&g.Client.RTT, &w.Client.RTT}, {&g.Server.RTT, &w.Server.RTT}} {
			if tm.g.Count != tm.w.Count || !near(tm.g.Sum, tm.w.Sum) {
				t.Errorf("%s: timing %+v, want %+v", name, *tm.g, *tm.w)
			}
			*tm.g, *tm.w = capture.Timing{}, capture.Timing{}
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

const midConversation = `
C, S = "192.0.2.9", "198.51.100.7"
pkts += [
  tcp(S, C, 443, 51000, "PA", 1000, 7000, b"r"*100, t=0.0),
  tcp(C, S, 51000, 443, "A", 7000, 1100, t=0.003),
  tcp(C, S, 51000, 443, "PA", 7000, 1100, b"q"*50, t=1.0),
  tcp(S, C, 443, 51000, "A", 1100, 7050, t=1.020),
  tcp(S, C, 443, 51000, "PA", 1100, 7050, b"r"*300, t=1.500),
  tcp(S, C, 443, 51000, "RA", 1400, 7050, t=1.600),
]
`

const retransmittedSYN = `
C, S = "10.1.0.1", "10.1.0.2"
pkts += [
  tcp(C, S, 40001, 22, "S", 100, 0, t=0.0),
  tcp(C, S, 40001, 22, "S", 100, 0, t=1.0),
  tcp(S, C, 22, 40001, "SA", 900, 101, t=1.030),
  tcp(S, C, 22, 40001, "SA", 900, 101, t=2.030),
  tcp(C, S, 40001, 22, "A", 101, 901, t=2.032),
]
`

const outOfOrder = `
C, S = "10.2.0.1", "10.2.0.2"
d = b"d"*1000
pkts += [
  tcp(C, S, 40002, 80, "S", 0, 0, t=0.0),
  tcp(S, C, 80, 40002, "SA", 0, 1, t=0.040),
  tcp(C, S, 40002, 80, "A", 1, 1, t=0.041),
  tcp(C, S, 40002, 80, "PA", 1, 1, b"GET / HTTP/1.0\r\n\r\n", t=0.042),
  # reordered: the second segment before the first, 0.1 ms apart (less than half server.rtt)
  tcp(S, C, 80, 40002, "A", 1001, 19, d, t=0.100),
  tcp(S, C, 80, 40002, "A", 1, 19, d, t=0.1001),
  # lost before the probe: 2001-3001 skipped, filled 25 ms later (more than half server.rtt,
  # as a retransmission the first SACK triggers comes about one RTT later)
  tcp(S, C, 80, 40002, "A", 3001, 19, d, t=0.101),
  tcp(S, C, 80, 40002, "A", 2001, 19, d, t=0.126),
  # a plain duplicate
  tcp(S, C, 80, 40002, "A", 3001, 19, d, t=0.300),
  tcp(C, S, 40002, 80, "A", 19, 4001, t=0.301),
]
`

const pipelined = `
C, S = "10.3.0.1", "10.3.0.2"
q = b"GET /a HTTP/1.1\r\nHost: pipe.example\r\n\r\n"
n = len(q)
pkts += [
  tcp(C, S, 40003, 80, "PA", 1, 1, q, t=0.100),
  tcp(C, S, 40003, 80, "PA", 1+n, 1, q, t=0.101),
  tcp(S, C, 80, 40003, "A", 1, 1+2*n, t=0.141),
  tcp(S, C, 80, 40003, "PA", 1, 1+2*n, b"a"*500, t=0.300),
  tcp(S, C, 80, 40003, "PA", 501, 1+2*n, b"b"*500, t=0.350),
  tcp(C, S, 40003, 80, "A", 1+2*n, 1001, t=0.351),
  tcp(C, S, 40003, 80, "PA", 1+2*n, 1001, q, t=1.000),
  tcp(S, C, 80, 40003, "PA", 1001, 1+3*n, b"c"*500, t=1.250, win=0),
]
`

const ipv6DNS = `
C, S, R = "2001:db8::1", "2001:db8::2", "2001:db8::53"
v6 = lambda **k: IPv6(**k)/IPv6ExtHdrHopByHop()/IPv6ExtHdrDestOpt()
query = Ether()/IPv6(src=C, dst=R)/UDP(sport=33333, dport=53)/DNS(id=1, rd=1, qd=DNSQR(qname="V6.Example", qtype="AAAA"))
query.time = T0
dns = Ether()/IPv6(src=R, dst=C)/UDP(sport=53, dport=33333)/DNS(id=1, qr=1, qd=DNSQR(qname="V6.Example", qtype="AAAA"),
      an=DNSRR(rrname="V6.Example", type="CNAME", rdata="cdn.example")/DNSRR(rrname="cdn.example", type="AAAA", rdata=S))
dns.time = T0 + 0.002
pkts += [query, dns,
  tcp(C, S, 40004, 443, "S", 10, 0, t=0.010, ip=v6),
  tcp(S, C, 443, 40004, "SA", 20, 11, t=0.035, ip=v6),
  tcp(C, S, 40004, 443, "A", 11, 21, t=0.036, ip=v6),
]
frag = fragment6(Ether()/IPv6(src=C, dst=S)/IPv6ExtHdrFragment()/UDP(sport=5000, dport=6000)/Raw(b"f"*3000), 1280)
for p in frag: p.time = T0 + 0.05
pkts += frag
`

const qinq = `
C, S = "10.4.0.1", "10.4.0.2"
q = lambda: Ether(type=0x88a8)/Dot1AD(vlan=100, type=0x8100)/Dot1Q(vlan=42)
pkts += [
  tcp(C, S, 40005, 25, "S", 0, 0, t=0.0, ether=q()),
  tcp(S, C, 25, 40005, "SA", 0, 1, t=0.010, ether=q()),
  tcp(C, S, 40005, 25, "A", 1, 1, t=0.011, ether=q()),
]
`

const severalSlices = `
C, S = "10.5.0.1", "10.5.0.2"
pkts += [tcp(C, S, 40006, 80, "PA", 1, 1, b"GET /big HTTP/1.1\r\n\r\n", t=10.0)]
seq = 1
for i, at in enumerate([10.5, 30, 70, 100, 130]):
    pkts.append(tcp(S, C, 80, 40006, "A", seq, 22, b"z"*1000, t=at))
    seq += 1000
pkts.append(tcp(C, S, 40006, 80, "FA", 22, seq, t=131.0))
`
