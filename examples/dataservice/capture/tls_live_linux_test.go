package capture_test

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"golang.org/x/net/dns/dnsmessage"
)

// TestLiveLayers runs dig against a small DNS server (in the test, over UDP and TCP) and
// openssl s_client against openssl s_server (TLS 1.2 and 1.3), in two network namespaces
// joined by a veth pair, and captures on the client's side: one DNS record per query (the
// truncated answer retried over TCP: two; the query never answered: rcode timeout) and one
// TLS record per handshake, with the values the servers were given.
func TestLiveLayers(t *testing.T) {
	// Serial, as TestLive: it names its network namespaces and interfaces.
	needNetns(t)
	dig := testenv.Need(t, "dig", "bind9-dnsutils")
	testenv.Need(t, "openssl", "openssl")
	id := fmt.Sprintf("lay%d", os.Getpid()%100000)
	cli, srv := id+"c", id+"s"
	for _, ns := range []string{cli, srv} {
		run(t, "ip", "netns", "add", ns)
		t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
		run(t, "ip", "-n", ns, "link", "set", "lo", "up")
	}
	run(t, "ip", "link", "add", "c0", "netns", cli, "type", "veth", "peer", "name", "s0", "netns", srv)
	run(t, "ip", "-n", cli, "addr", "add", "10.78.0.1/24", "dev", "c0")
	run(t, "ip", "-n", srv, "addr", "add", "10.78.0.2/24", "dev", "s0")
	run(t, "ip", "-n", cli, "link", "set", "c0", "up")
	run(t, "ip", "-n", srv, "link", "set", "s0", "up")

	var udp net.PacketConn
	var tcpLn net.Listener
	inNetns(t, srv, func() (err error) {
		if udp, err = net.ListenPacket("udp", "10.78.0.2:53"); err != nil {
			return err
		}
		tcpLn, err = net.Listen("tcp", "10.78.0.2:53")
		return err
	})
	defer udp.Close()
	defer tcpLn.Close()
	go serveDNSUDP(udp)
	go serveDNSTCP(tcpLn)
	dir := t.TempDir()
	cert := makeCert(t, dir, "live.example")
	opensslServer(t, srv, dir, "10.78.0.2:8443", "-tls1_2")
	opensslServer(t, srv, dir, "10.78.0.2:8444", "-tls1_3")

	var src capture.Source
	inNetns(t, cli, func() (err error) { src, err = capture.OpenInterface("c0", nil); return err })
	var mu sync.Mutex
	var recs []capture.Record
	tbl := capture.NewTable(capture.Config{}, func(r capture.Record) { mu.Lock(); recs = append(recs, r); mu.Unlock() })
	probe := &capture.Probe{Source: src, Table: tbl}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- probe.Run(ctx) }()

	inCli := func(args ...string) string {
		b, _ := exec.Command("ip", append([]string{"netns", "exec", cli}, args...)...).CombinedOutput()
		return string(b)
	}
	for _, q := range [][2]string{{"A.Live.Example", "A"}, {"aaaa.live.example", "AAAA"}, {"nx.live.example", "A"},
		{"fail.live.example", "A"}, {"big.live.example", "TXT"}, {"silent.live.example", "A"}} {
		out := inCli(dig, "@10.78.0.2", q[0], q[1], "+tries=1", "+timeout=1")
		t.Logf("dig %s %s: %s", q[0], q[1], firstLine(out, "status:"))
	}
	for _, c := range [][]string{{"10.78.0.2:8443", "live12.example", "-tls1_2", "-cipher", "ECDHE-ECDSA-AES256-GCM-SHA384"},
		{"10.78.0.2:8444", "live13.example", "-tls1_3", "-ciphersuites", "TLS_AES_128_GCM_SHA256"}} {
		cmd := exec.Command("ip", append([]string{"netns", "exec", cli, "openssl", "s_client", "-connect", c[0], "-servername", c[1]}, c[2:]...)...)
		cmd.Stdin = strings.NewReader("")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("openssl s_client %v: %v\n%s", c, err, b)
		}
	}
	time.Sleep(2 * capture.RingBlockTimeout) // not a wait: the ring hands its last block over after this timer
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("probe: %v", err)
	}
	tbl.Flush()
	src.Close()

	type dnsKey struct {
		name  string
		proto uint8
	}
	dns := map[dnsKey]capture.Record{}
	tlsRecs := map[uint16]capture.Record{}
	for _, r := range recs {
		switch r.Layer {
		case records.LayerDNS:
			k := dnsKey{r.DNS.QName, r.Protocol}
			if _, dup := dns[k]; dup {
				t.Errorf("two records of %+v", k)
			}
			dns[k] = r
		case records.LayerTLS:
			tlsRecs[r.Server.Port] = r
		}
	}
	for _, w := range []struct {
		name         string
		proto        uint8
		qtype, rcode uint16
	}{{"a.live.example", 17, 1, 0}, {"aaaa.live.example", 17, 28, 0}, {"nx.live.example", 17, 1, 3},
		{"fail.live.example", 17, 1, 2}, {"big.live.example", 17, 16, 0}, {"big.live.example", 6, 16, 0},
		{"silent.live.example", 17, 1, records.RCodeTimeout}} {
		r, ok := dns[dnsKey{w.name, w.proto}]
		if !ok {
			t.Errorf("no record of %s over protocol %d", w.name, w.proto)
			continue
		}
		answered := w.rcode != records.RCodeTimeout
		if r.DNS.QType != w.qtype || r.DNS.RCode != w.rcode || (r.SRT.Samples == 1) != answered || r.Server.Port != 53 {
			t.Errorf("%s over %d: %+v, srt samples %d; want qtype %d rcode %d", w.name, w.proto, r.DNS, r.SRT.Samples, w.qtype, w.rcode)
		}
	}
	if len(dns) != 7 {
		t.Errorf("%d DNS records, want 7: %+v", len(dns), dns)
	}
	for port, w := range map[uint16]struct {
		name string
		tls  records.TLS
	}{
		8443: {"live12.example", records.TLS{Version: tls.VersionTLS12, Cipher: tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
			NotAfter: cert.NotAfter.Unix(), Issuer: cert.Issuer.String()}},
		8444: {"live13.example", records.TLS{Version: tls.VersionTLS13, Cipher: tls.TLS_AES_128_GCM_SHA256}},
	} {
		r := tlsRecs[port]
		if r.TLS != w.tls || r.ServerName != w.name || r.CT.Samples != 1 {
			t.Errorf("port %d: %+v named %q, ct samples %d; want %+v named %s with a ct", port, r.TLS, r.ServerName, r.CT.Samples, w.tls, w.name)
		}
	}
}

func firstLine(s, has string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, has) {
			return strings.TrimSpace(l)
		}
	}
	return "no answer"
}

// dnsReply answers query q as the live test's server does: "silent." never (nil), "nx."
// NXDOMAIN, "fail." SERVFAIL, "big." TXT too large for UDP (truncated, TC), the others an
// address.
func dnsReply(q []byte, tcp bool) []byte {
	var p dnsmessage.Parser
	h, err := p.Start(q)
	if err != nil {
		return nil
	}
	qs, err := p.AllQuestions()
	if err != nil || len(qs) != 1 {
		return nil
	}
	name := strings.ToLower(qs[0].Name.String())
	rh := dnsmessage.Header{ID: h.ID, Response: true, RecursionDesired: h.RecursionDesired, Authoritative: true}
	switch {
	case strings.HasPrefix(name, "silent."):
		return nil
	case strings.HasPrefix(name, "nx."):
		rh.RCode = dnsmessage.RCodeNameError
	case strings.HasPrefix(name, "fail."):
		rh.RCode = dnsmessage.RCodeServerFailure
	case strings.HasPrefix(name, "big.") && !tcp:
		rh.Truncated = true
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.StartQuestions()
	b.Question(qs[0])
	b.StartAnswers()
	if rh.RCode == 0 && !rh.Truncated {
		rr := dnsmessage.ResourceHeader{Name: qs[0].Name, Class: dnsmessage.ClassINET, TTL: 60}
		switch qs[0].Type {
		case dnsmessage.TypeA:
			b.AResource(rr, dnsmessage.AResource{A: [4]byte{10, 78, 0, 2}})
		case dnsmessage.TypeAAAA:
			b.AAAAResource(rr, dnsmessage.AAAAResource{AAAA: [16]byte{0x20, 0x01, 0x0d, 0xb8, 15: 2}})
		case dnsmessage.TypeTXT:
			b.TXTResource(rr, dnsmessage.TXTResource{TXT: []string{strings.Repeat("t", 250), strings.Repeat("u", 250), strings.Repeat("v", 250)}})
		}
	}
	m, _ := b.Finish()
	return m
}

func serveDNSUDP(c net.PacketConn) {
	buf := make([]byte, 4096)
	for {
		n, from, err := c.ReadFrom(buf)
		if err != nil {
			return
		}
		if m := dnsReply(buf[:n], false); m != nil {
			c.WriteTo(m, from)
		}
	}
}

func serveDNSTCP(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			for {
				var l [2]byte
				if _, err := io.ReadFull(c, l[:]); err != nil {
					return
				}
				q := make([]byte, binary.BigEndian.Uint16(l[:]))
				if _, err := io.ReadFull(c, q); err != nil {
					return
				}
				if m := dnsReply(q, true); m != nil {
					c.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(m))), m...))
				}
			}
		}()
	}
}
