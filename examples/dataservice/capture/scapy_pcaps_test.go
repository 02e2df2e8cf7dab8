package capture_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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
