package capture_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestLive runs real HTTP and HTTPS servers and clients in network namespaces, the server's
// packets delayed 40 ms by a user-space forwarder between two veth pairs (this kernel has no
// netem), and captures on the client's interface:
//
//	client ns: c0 ── f0 :forwarder ns: f1 ── s0 : server ns
//	           probe   (server→client +40 ms, and 5 % lost in the second phase)
//
// The first phase checks the times (HTTP: each sum is what the captured packets' own times
// say, computed by the test, and at least the forwarder's delay, so that a busy machine
// cannot fail it) and the server name (the SNI of HTTPS); the second
// drops 5 % of the server's packets and checks that the probe counts about the
// retransmissions the servers' and clients' TCP stacks made (the kernel's RetransSegs).
// It is not parallel: timing is what it checks, so it runs before the parallel tests start.
func TestLive(t *testing.T) {
	// Serial: it names its network namespaces and addresses.
	needNetns(t)
	const (
		delay = 40 * time.Millisecond
		think = 100 * time.Millisecond
		runs  = 8
		// bulkRuns responses of the lossy phase: about 1,400 server segments, 70 lost.
		bulkRuns = 8
	)
	id := fmt.Sprintf("cap%d", os.Getpid()%100000)
	cli, fwd, srv := id+"c", id+"f", id+"s"
	for _, ns := range []string{cli, fwd, srv} {
		run(t, "ip", "netns", "add", ns)
		t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
		run(t, "ip", "-n", ns, "link", "set", "lo", "up")
	}
	run(t, "ip", "link", "add", "c0", "netns", cli, "type", "veth", "peer", "name", "f0", "netns", fwd)
	run(t, "ip", "link", "add", "s0", "netns", srv, "type", "veth", "peer", "name", "f1", "netns", fwd)
	run(t, "ip", "-n", cli, "addr", "add", "10.77.0.1/24", "dev", "c0")
	run(t, "ip", "-n", srv, "addr", "add", "10.77.0.2/24", "dev", "s0")
	for _, l := range [][2]string{{cli, "c0"}, {fwd, "f0"}, {fwd, "f1"}, {srv, "s0"}} {
		run(t, "ip", "-n", l[0], "link", "set", l[1], "up")
	}
	// One TCP segment per frame (no GSO): the forwarder writes each frame as it is read, and a
	// packet socket refuses a frame larger than the MTU.
	run(t, "ip", "-n", srv, "link", "set", "s0", "gso_max_segs", "1")
	run(t, "ip", "-n", cli, "link", "set", "c0", "gso_max_segs", "1")

	fw := startForwarder(t, fwd, delay)
	defer fw.stop()

	var ln net.Listener
	inNetns(t, srv, func() (err error) { ln, err = net.Listen("tcp", "10.77.0.2:8080"); return err })
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(think) // not a wait: the server's think time, which the probe measures (srt)
		io.WriteString(w, "ok\n")
	})}
	go hs.Serve(ln)
	defer hs.Close()
	// HTTPS with httptest's certificate (example.com and *.example.com); the same think time.
	var tlsLn, bulkLn, curlLn net.Listener
	inNetns(t, srv, func() (err error) { curlLn, err = net.Listen("tcp", "10.77.0.2:8082"); return err })
	curlSrv := &http.Server{Handler: hs.Handler}
	go curlSrv.Serve(curlLn)
	defer curlSrv.Close()
	inNetns(t, srv, func() (err error) { tlsLn, err = net.Listen("tcp", "10.77.0.2:8443"); return err })
	inNetns(t, srv, func() (err error) { bulkLn, err = net.Listen("tcp", "10.77.0.2:8081"); return err })
	hts := httptest.NewUnstartedServer(hs.Handler)
	hts.Listener = tlsLn
	hts.StartTLS()
	defer hts.Close()
	roots := x509.NewCertPool()
	roots.AddCert(hts.Certificate())
	// The second phase's server answers 256 KiB at once: about 180 segments a response.
	bulk := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(make([]byte, 256<<10))
	})}
	go bulk.Serve(bulkLn)
	defer bulk.Close()

	// The kernel filters what the probe sees, when tcpdump can compile the filter.
	var filter *capture.Filter
	if _, err := exec.LookPath("tcpdump"); err == nil {
		if filter, err = capture.CompileFilter(context.Background(), "tcp port 8080 or tcp port 8443 or tcp port 8081 or tcp port 8082", capture.LinkEthernet); err != nil {
			t.Fatal(err)
		}
	}
	var src capture.Source
	inNetns(t, cli, func() (err error) { src, err = capture.OpenInterface("c0", filter); return err })
	var mu sync.Mutex
	var recs []capture.Record
	tbl := capture.NewTable(capture.Config{}, func(r capture.Record) { mu.Lock(); recs = append(recs, r); mu.Unlock() })
	var seen uint64 // the table's packets as Progress saw them while the capture went on
	tee := &teeSource{Source: src}
	probe := &capture.Probe{Source: tee, Table: tbl}
	probe.Progress = func() { seen = tbl.Stats().Packets }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- probe.Run(ctx) }()

	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (c net.Conn, err error) {
			inNetns(t, cli, func() error { c, err = (&net.Dialer{}).DialContext(ctx, network, addr); return nil })
			return c, err
		},
		TLSClientConfig: &tls.Config{ServerName: "secure.example.com", RootCAs: roots},
	}}
	get := func(url, host string) {
		req, _ := http.NewRequest("GET", url, nil)
		req.Host = host
		resp, err := client.Do(req)
		if err != nil {
			cancel()
			<-done
			tbl.Flush()
			t.Fatalf("%v; records: %+v", err, recs)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	// Without loss the stacks retransmit nothing, unless the machine is so busy that a tail
	// loss probe fires before the other side's (TLS) answer: those are retransmissions too.
	start := retransSegs(t, srv) + retransSegs(t, cli)
	for range runs {
		get("http://10.77.0.2:8080/", "live.example")
		get("https://10.77.0.2:8443/", "")
	}
	// curl: two requests on one keep-alive connection, a Host with a port, a query string.
	curl := exec.Command("ip", "netns", "exec", cli, "curl", "-sS", "-o", "/dev/null", "-o", "/dev/null",
		"-H", "Host: Curl.Example:8082", "http://10.77.0.2:8082/items/42?x=1", "http://10.77.0.2:8082/items/43")
	if _, err := exec.LookPath("curl"); err != nil {
		curl = nil
		if os.Getenv("CI") == "true" {
			t.Error("curl is missing (apt-get install curl)")
		}
	}
	if curl != nil {
		if b, err := curl.CombinedOutput(); err != nil {
			t.Errorf("curl: %v\n%s", err, b)
		}
	}

	// Second phase: 5 % of the server's packets lost. Each stack's retransmissions, counted
	// before and after, are what the probe should count. The first phase's last closing
	// handshakes end first (a few round trips), so that none is lost.
	waitClosed(t, srv, cli)
	before := retransSegs(t, srv) + retransSegs(t, cli)
	firstRetrans := before - start
	fw.loss.Store(50) // per mille
	for range bulkRuns {
		get("http://10.77.0.2:8081/", "bulk.example")
	}
	fw.loss.Store(0)
	stackRetrans := retransSegs(t, srv) + retransSegs(t, cli) - before
	time.Sleep(2 * capture.RingBlockTimeout) // not a wait: the ring hands its last block over after this timer
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("probe: %v", err)
	}
	if seen == 0 {
		t.Error("Progress never saw the table count a packet while capturing")
	}
	tbl.Flush()
	st := src.Stats()
	src.Close()

	var sum, tlsSum, bulkSum capture.Record
	conns := map[uint16]bool{} // a conversation may span two slices: two records
	tlsConns, bulkConns := map[uint16]bool{}, map[uint16]bool{}
	// Each conversation's name is the one its client sent (SNI, Host) in every record from its
	// first request on; a record of a slice that ended between the handshake and that request
	// has none yet.
	named := map[uint16]string{}
	checkName := func(r capture.Record, want string) {
		if r.ServerName != "" && r.ServerName != want {
			t.Errorf("port %d: server name %q, want %q", r.Server.Port, r.ServerName, want)
		}
		if r.ServerName != "" {
			named[r.Client.Port] = r.ServerName
		}
	}
	var httpRecs []capture.Record
	for _, r := range recs {
		if r.Layer == records.LayerHTTP {
			httpRecs = append(httpRecs, r)
			continue
		}
		switch r.Server.Port {
		case 8082:
			continue
		case 8443:
			tlsConns[r.Client.Port] = true
			checkName(r, "secure.example.com")
			tlsSum.Server.RTT.Sum += r.Server.RTT.Sum
			tlsSum.Server.RTT.Samples += r.Server.RTT.Samples
			tlsSum.Client.Retrans += r.Client.Retrans
			tlsSum.Server.Retrans += r.Server.Retrans
			continue
		case 8081:
			bulkConns[r.Client.Port] = true
			bulkSum.Client.Retrans += r.Client.Retrans
			bulkSum.Server.Retrans += r.Server.Retrans
			bulkSum.Server.Packets += r.Server.Packets
			continue
		case 8080:
		default:
			if filter != nil {
				t.Errorf("the filter let through %+v", r)
			}
			continue
		}
		conns[r.Client.Port] = true
		checkName(r, "live.example")
		for _, p := range []struct{ to, from *records.Timing }{{&sum.Server.RTT, &r.Server.RTT},
			{&sum.Client.RTT, &r.Client.RTT}, {&sum.SRT, &r.SRT}, {&sum.CT, &r.CT}} {
			p.to.Sum += p.from.Sum
			p.to.Samples += p.from.Samples
		}
		sum.Client.Retrans += r.Client.Retrans
		sum.Server.Retrans += r.Server.Retrans
	}
	if st.Packets == 0 {
		t.Errorf("the kernel counted no packets: %+v", st)
	}
	if len(conns) != runs || len(tlsConns) != runs || len(bulkConns) != bulkRuns {
		t.Fatalf("%d, %d and %d conversations with the HTTP, HTTPS and bulk servers, want %d, %d and %d (records %+v)",
			len(conns), len(tlsConns), len(bulkConns), runs, runs, bulkRuns, recs)
	}
	for _, cs := range []map[uint16]bool{conns, tlsConns} {
		for port := range cs {
			if named[port] == "" {
				t.Errorf("the conversation from client port %d has no server name in any record", port)
			}
		}
	}
	mean := func(tm records.Timing) time.Duration { m, _ := tm.Seconds(); return time.Duration(m * 1e9) }
	t.Logf("server.rtt %v (%d), client.rtt %v (%d), srt %v (%d), ct %v; kernel: %+v; forwarder held HTTP frames %v, HTTPS %v",
		mean(sum.Server.RTT), sum.Server.RTT.Samples, mean(sum.Client.RTT), sum.Client.RTT.Samples,
		mean(sum.SRT), sum.SRT.Samples, mean(sum.CT), st, fw.meanHold(8080), fw.meanHold(8443))
	// The probe must measure the network as it was: each of its sums is what the packets it
	// saw say, computed here from their capture times (refRTT, refSRT), so that a busy
	// machine (a forwarder late, a server's sleep longer) changes both alike; and the
	// forwarder, which never holds a frame less than its delay, bounds them below.
	same := func(name string, got, want records.Timing, least time.Duration) {
		t.Helper()
		if got.Sum != want.Sum || got.Samples != want.Samples || want.Samples == 0 {
			t.Errorf("%s: %d µs in %d samples, the packets say %d µs in %d", name, got.Sum, got.Samples, want.Sum, want.Samples)
		}
		if m := mean(got); m < least {
			t.Errorf("%s = %v, want at least %v", name, m, least)
		}
	}
	same("server.rtt", sum.Server.RTT, refRTT(tee.pkts, 8080, true), delay)
	same("client.rtt", sum.Client.RTT, refRTT(tee.pkts, 8080, false), 0)
	if c, s := mean(sum.Client.RTT), mean(sum.Server.RTT); c >= s {
		t.Errorf("client.rtt = %v, want less than server.rtt %v (the forwarder delays the server's side)", c, s)
	}
	same("srt", sum.SRT, refSRT(tee.pkts, 8080), think+delay)
	if sum.SRT.Samples != runs {
		t.Errorf("srt samples %d, want %d", sum.SRT.Samples, runs)
	}
	same("HTTPS server.rtt", tlsSum.Server.RTT, refRTT(tee.pkts, 8443, true), delay)
	checkLiveHTTP(t, httpRecs, runs, bulkRuns, curl != nil, func(name string, got records.Timing) {
		same(name, got, refHTTPSRT(tee.pkts, 8080), think+delay)
	})
	// Nothing is lost in the first phase: the probe sees every retransmission the stacks make
	// (none, unless the machine was too busy).
	if got := sum.Client.Retrans + sum.Server.Retrans + tlsSum.Client.Retrans + tlsSum.Server.Retrans; got != firstRetrans {
		t.Errorf("without loss the probe counted %d retransmissions (HTTP %d/%d, HTTPS %d/%d), the stacks made %d",
			got, sum.Client.Retrans, sum.Server.Retrans, tlsSum.Client.Retrans, tlsSum.Server.Retrans, firstRetrans)
	}

	// With loss: the stacks' retransmissions that reached the probe. A retransmission lost in
	// turn (5 %) counts in its stack only, so the probe may count a little less.
	probeRetrans := bulkSum.Client.Retrans + bulkSum.Server.Retrans
	t.Logf("lossy phase: the forwarder dropped %d of the server's frames; the stacks retransmitted %d segments, "+
		"the probe counted %d (client %d, server %d) of %d server packets", fw.dropped.Load(), stackRetrans,
		probeRetrans, bulkSum.Client.Retrans, bulkSum.Server.Retrans, bulkSum.Server.Packets)
	if fw.dropped.Load() == 0 || stackRetrans == 0 {
		t.Fatalf("the forwarder dropped %d frames and the stacks retransmitted %d: no loss to measure", fw.dropped.Load(), stackRetrans)
	}
	if d := float64(probeRetrans) - float64(stackRetrans); probeRetrans == 0 || d > 0.25*float64(stackRetrans)+2 || -d > 0.25*float64(stackRetrans)+2 {
		t.Errorf("the probe counted %d retransmissions, the stacks made %d: want within 25 %% (+2)", probeRetrans, stackRetrans)
	}
}

// checkLiveHTTP checks TestLive's HTTP records: one per request of Go's client (each on its
// own connection), with the srt the transport measures; curl's two on one connection; none
// of HTTPS; the bulk responses' bytes, those whose headers were not lost.
func checkLiveHTTP(t *testing.T, recs []capture.Record, runs, bulkRuns int, curl bool, srt func(string, records.Timing)) {
	t.Helper()
	var sum records.Timing
	var n, bulk, curls int
	curlPorts := map[uint16]bool{}
	for _, r := range recs {
		h := r.HTTP
		switch r.Server.Port {
		case 8080:
			n++
			if h.Method != "GET" || h.Status != 200 || h.Host != "live.example" || h.Path != "/" || r.SRT.Samples != 1 || r.DTT.Samples != 1 {
				t.Errorf("HTTP record %+v srt %+v dtt %+v", h, r.SRT, r.DTT)
			}
			sum.Sum += r.SRT.Sum
			sum.Samples += r.SRT.Samples
		case 8081:
			bulk++
			if h.Status != 200 || r.Server.Bytes < 256<<10 || h.Host != "bulk.example" {
				t.Errorf("bulk HTTP record %+v of %d bytes", h, r.Server.Bytes)
			}
		case 8082:
			curls++
			curlPorts[r.Client.Port] = true
			if h.Method != "GET" || h.Status != 200 || h.Host != "curl.example" || h.Path != "/items/{n}" {
				t.Errorf("curl's HTTP record %+v", h)
			}
		default:
			t.Errorf("an HTTP record of server port %d: %+v", r.Server.Port, h)
		}
	}
	if n != runs || bulk > bulkRuns || bulk == 0 {
		t.Errorf("%d HTTP records of Go's client, %d of the bulk server; want %d and at most %d", n, bulk, runs, bulkRuns)
	}
	if curl && (curls != 2 || len(curlPorts) != 1) {
		t.Errorf("%d HTTP records of curl's on %d connections, want 2 on 1", curls, len(curlPorts))
	}
	m, _ := sum.Seconds()
	t.Logf("HTTP records: %d of Go's client (srt %v), %d of the bulk server, %d of curl's", n, time.Duration(m*1e9), bulk, curls)
	srt("HTTP srt", sum)
}
