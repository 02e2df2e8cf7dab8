package capture_test

import (
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

func init() { captures["dnsQueries"] = dnsQueries }

// dnsQueries: a client asks a resolver over UDP (A, AAAA, NXDOMAIN, SERVFAIL, one never
// answered, one truncated) and retries the truncated one over TCP, with a second query on
// the same connection; the first TCP answer's length and message come in separate
// segments, the second answer in the same segment as the first's end.
const dnsQueries = `
C, R = "10.9.0.1", "10.9.0.53"
def udp(src, dst, sport, dport, dns, t):
    p = Ether()/IP(src=src, dst=dst)/UDP(sport=sport, dport=dport)/dns
    p.time = T0 + t
    return p
def ask(id, name, qtype, sport, t, rcode=None, at=None, tc=0, an=None):
    q = DNSQR(qname=name, qtype=qtype)
    pkts.append(udp(C, R, sport, 53, DNS(id=id, rd=1, qd=q), t))
    if rcode is not None:
        pkts.append(udp(R, C, 53, sport, DNS(id=id, qr=1, rd=1, ra=1, tc=tc, rcode=rcode, qd=q, an=an), at))
ask(1, "WWW.Example.COM.", "A", 40001, 0.000, 0, 0.012, an=DNSRR(rrname="www.example.com", type="A", rdata="192.0.2.80"))
ask(2, "v6.example.com", "AAAA", 40002, 0.100, 0, 0.135, an=DNSRR(rrname="v6.example.com", type="AAAA", rdata="2001:db8::80"))
ask(3, "nope.example", "A", 40003, 0.200, 3, 0.230)
ask(4, "broken.example", "A", 40004, 0.300, 2, 1.300)
ask(5, "silent.example", "A", 40005, 0.400)
ask(6, "big.example", "TXT", 40006, 0.500, 0, 0.520, tc=1)
def msg(dns):
    m = bytes(dns)
    return len(m).to_bytes(2, "big") + m
q7 = msg(DNS(id=7, rd=1, qd=DNSQR(qname="big.example", qtype="TXT")))
q8 = msg(DNS(id=8, rd=1, qd=DNSQR(qname="Second.Example", qtype="A")))
a7 = msg(DNS(id=7, qr=1, rd=1, ra=1, qd=DNSQR(qname="big.example", qtype="TXT"),
             an=DNSRR(rrname="big.example", type="TXT", rdata=["t"*200, "u"*200, "v"*200])))
a8 = msg(DNS(id=8, qr=1, rd=1, ra=1, qd=DNSQR(qname="second.example", qtype="A"),
             an=DNSRR(rrname="second.example", type="A", rdata="192.0.2.81")))
pkts += [
  tcp(C, R, 40100, 53, "S", 1000, 0, t=0.530),
  tcp(R, C, 53, 40100, "SA", 5000, 1001, t=0.531),
  tcp(C, R, 40100, 53, "A", 1001, 5001, t=0.532),
  tcp(C, R, 40100, 53, "PA", 1001, 5001, q7, t=0.533),
  tcp(C, R, 40100, 53, "PA", 1001+len(q7), 5001, q8, t=0.534),
  tcp(R, C, 53, 40100, "PA", 5001, 1001+len(q7)+len(q8), a7[:2], t=0.600),
  tcp(R, C, 53, 40100, "PA", 5003, 1001+len(q7)+len(q8), a7[2:] + a8, t=0.601),
]
# long after: the unanswered query has timed out when this one comes
ask(9, "later.example", "A", 40009, 20.000, 0, 20.001)
`

// TestDNSRecords reads DNS over UDP and TCP: one record per query, with its name (lower
// case, without the final dot), type, rcode and srt; the query never answered is a record of
// rcode timeout without srt; the truncated answer and its retry over TCP are two records.
func TestDNSRecords(t *testing.T) {
	t.Parallel()
	recs, tbl := readAllRecords(t, scapyPcap(t, "dnsQueries"), capture.Config{})
	type want struct {
		proto uint8
		qtype uint16
		rcode uint16
		srt   []float64 // seconds; none when unanswered
	}
	wants := map[string][]want{
		"www.example.com": {{17, 1, 0, []float64{0.012}}},
		"v6.example.com":  {{17, 28, 0, []float64{0.035}}},
		"nope.example":    {{17, 1, 3, []float64{0.030}}},
		"broken.example":  {{17, 1, 2, []float64{1.000}}},
		"silent.example":  {{17, 1, records.RCodeTimeout, nil}},
		"big.example":     {{17, 16, 0, []float64{0.020}}, {6, 16, 0, []float64{0.601 - 0.533}}},
		"second.example":  {{6, 1, 0, []float64{0.601 - 0.534}}},
		"later.example":   {{17, 1, 0, []float64{0.001}}},
	}
	got := map[string][]capture.Record{}
	n := 0
	for _, r := range recs {
		if r.Layer != records.LayerDNS {
			continue
		}
		n++
		got[r.DNS.QName] = append(got[r.DNS.QName], r)
	}
	for name, ws := range wants {
		rs := got[name]
		if len(rs) != len(ws) {
			t.Errorf("%s: %d records, want %d: %+v", name, len(rs), len(ws), rs)
			continue
		}
		for i, w := range ws {
			r := rs[i]
			if r.Protocol != w.proto || r.DNS.QType != w.qtype || r.DNS.RCode != w.rcode {
				t.Errorf("%s #%d: protocol %d qtype %d rcode %d, want %d %d %d", name, i, r.Protocol,
					r.DNS.QType, r.DNS.RCode, w.proto, w.qtype, w.rcode)
			}
			wantTiming(t, name+" srt", r.SRT, w.srt...)
			if r.Client.IP.String() != "10.9.0.1" || r.Server.IP.String() != "10.9.0.53" || r.Server.Port != 53 || r.Time != 1700000040 {
				t.Errorf("%s: client %v:%d server %v:%d time %d", name, r.Client.IP, r.Client.Port, r.Server.IP, r.Server.Port, r.Time)
			}
		}
	}
	if n != 9 {
		t.Errorf("%d DNS records, want 9", n)
	}
	if s := tbl.Stats(); s.DNSRecords != 9 || s.DNSTimeouts != 1 || s.DNSQueries != 0 {
		t.Errorf("stats: %d DNS records, %d timeouts, %d waiting; want 9, 1, 0", s.DNSRecords, s.DNSTimeouts, s.DNSQueries)
	}
}
