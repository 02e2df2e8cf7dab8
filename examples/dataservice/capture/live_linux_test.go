package capture_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
)

// TestLive runs real HTTP and HTTPS servers and clients in network namespaces, the server's
// packets delayed 40 ms by a user-space forwarder between two veth pairs (this kernel has no
// netem), and captures on the client's interface:
//
//	client ns: c0 ── f0 :forwarder ns: f1 ── s0 : server ns
//	           probe   (server→client +40 ms, and 5 % lost in the second phase)
//
// The first phase checks the times (HTTP) and the server name (the SNI of HTTPS); the second
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
	var tlsLn, bulkLn net.Listener
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
		if filter, err = capture.CompileFilter(context.Background(), "tcp port 8080 or tcp port 8443 or tcp port 8081", capture.LinkEthernet); err != nil {
			t.Fatal(err)
		}
	}
	var src capture.Source
	inNetns(t, cli, func() (err error) { src, err = capture.OpenInterface("c0", filter); return err })
	var mu sync.Mutex
	var recs []capture.Record
	tbl := capture.NewTable(capture.Config{}, func(r capture.Record) { mu.Lock(); recs = append(recs, r); mu.Unlock() })
	var seen uint64 // the table's packets as Progress saw them while the capture went on
	probe := &capture.Probe{Source: src, Table: tbl}
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
	for _, r := range recs {
		switch r.Server.Port {
		case 8443:
			tlsConns[r.Client.Port] = true
			checkName(r, "secure.example.com")
			tlsSum.Server.RTT.Sum += r.Server.RTT.Sum
			tlsSum.Server.RTT.Count += r.Server.RTT.Count
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
		for _, p := range []struct{ to, from *capture.Timing }{{&sum.Server.RTT, &r.Server.RTT},
			{&sum.Client.RTT, &r.Client.RTT}, {&sum.SRT, &r.SRT}, {&sum.CT, &r.CT}} {
			p.to.Sum += p.from.Sum
			p.to.Count += p.from.Count
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
	mean := func(tm capture.Timing) time.Duration { m, _ := tm.Mean(); return time.Duration(m * 1e9) }
	t.Logf("server.rtt %v (%d), client.rtt %v (%d), srt %v (%d), ct %v; kernel: %+v; forwarder held HTTP frames %v, HTTPS %v",
		mean(sum.Server.RTT), sum.Server.RTT.Count, mean(sum.Client.RTT), sum.Client.RTT.Count,
		mean(sum.SRT), sum.SRT.Count, mean(sum.CT), st, fw.meanHold(8080), fw.meanHold(8443))
	within := func(name string, got, want time.Duration, tol float64) {
		if d := float64(got - want); d > tol*float64(want) || -d > tol*float64(want) {
			t.Errorf("%s = %v, want %v within %.0f %%", name, got, want, tol*100)
		}
	}
	// The probe must measure the network as it was: when the machine was too busy for the
	// forwarder to keep its 40 ms (more than 5 % late on average, over the frames of the
	// server measured), the delay it really applied is the reference.
	applied := func(port uint16) time.Duration {
		if h := fw.meanHold(port); h > delay*105/100 {
			t.Logf("the forwarder held port %d's frames %v on average, not %v: checking against that", port, h, delay)
			return h
		}
		return delay
	}
	within("server.rtt", mean(sum.Server.RTT), applied(8080), 0.10)
	if c := mean(sum.Client.RTT); c >= 5*time.Millisecond {
		t.Errorf("client.rtt = %v, want under 5 ms", c)
	}
	within("srt", mean(sum.SRT), think+applied(8080), 0.15)
	if sum.SRT.Count != runs {
		t.Errorf("srt samples %d, want %d", sum.SRT.Count, runs)
	}
	within("HTTPS server.rtt", mean(tlsSum.Server.RTT), applied(8443), 0.10)
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

// retransSegs reads the TCP segments network namespace ns retransmitted (RetransSegs of
// /proc/net/snmp, as the kernel counts them).
func retransSegs(t *testing.T, ns string) uint64 {
	t.Helper()
	b, err := exec.Command("ip", "netns", "exec", ns, "cat", "/proc/net/snmp").Output()
	if err != nil {
		t.Fatalf("ip netns exec %s cat /proc/net/snmp: %v", ns, err)
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "Tcp:" {
			continue
		}
		if names == nil {
			names = f
			continue
		}
		for i, n := range names {
			if n == "RetransSegs" && i < len(f) {
				v, err := strconv.ParseUint(f[i], 10, 64)
				if err != nil {
					t.Fatalf("RetransSegs %q: %v", f[i], err)
				}
				return v
			}
		}
	}
	t.Fatalf("no RetransSegs in the /proc/net/snmp of %s:\n%s", ns, b)
	return 0
}

// needNetns skips (fails under CI=true) unless the test can make network namespaces.
func needNetns(t *testing.T) {
	t.Helper()
	why := ""
	if os.Geteuid() != 0 {
		why = "not root"
	} else if _, err := exec.LookPath("ip"); err != nil {
		why = "no ip command (apt-get install iproute2)"
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("network namespaces: %s", why)
	}
	t.Skipf("network namespaces: %s", why)
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if b, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, b)
	}
}

// inNetns runs fn on a thread moved into network namespace ns; sockets it makes stay there.
// The thread is never given back (it ends with its goroutine).
func inNetns(t *testing.T, ns string, fn func() error) {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		f, err := os.Open("/run/netns/" + ns)
		if err != nil {
			errc <- err
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("setns %s: %w", ns, err)
			return
		}
		errc <- fn()
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// forwarder copies frames between two interfaces, delaying one direction.
type forwarder struct {
	stop   func()
	mu     sync.Mutex
	byPort map[uint16][2]int64 // frames delayed and ns held, by TCP source port
	// loss is the share of the delayed frames dropped, per mille; dropped counts them.
	loss    atomic.Int64
	dropped atomic.Int64
}

// meanHold is how long the frames from TCP port port were held on average, from their
// arrival at the interface to their departure: more than the delay when the machine was too
// busy to move them in time.
func (f *forwarder) meanHold(port uint16) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.byPort[port]; c[0] > 0 {
		return time.Duration(c[1] / c[0])
	}
	return 0
}

// tcpSourcePort reads the source port of an Ethernet/IPv4/TCP frame.
func tcpSourcePort(f []byte) (uint16, bool) {
	if len(f) < 34 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 6 {
		return 0, false
	}
	at := 14 + int(f[14]&0x0f)*4
	if len(f) < at+2 {
		return 0, false
	}
	return uint16(f[at])<<8 | uint16(f[at+1]), true
}

// startForwarder copies every frame between f0 and f1 in namespace ns, those from f1 (the
// server's) after delay.
func startForwarder(t *testing.T, ns string, delay time.Duration) *forwarder {
	t.Helper()
	var fd0, fd1 int
	inNetns(t, ns, func() (err error) {
		if fd0, err = rawSocket("f0"); err != nil {
			return err
		}
		fd1, err = rawSocket("f1")
		return err
	})
	fw := &forwarder{byPort: map[uint16][2]int64{}}
	var stopped atomic.Bool
	var readers sync.WaitGroup
	writer := make(chan struct{})
	type held struct {
		read  time.Time // when the frame reached the interface (the kernel's timestamp)
		frame []byte
	}
	queue := make(chan held, 4096)
	copyFrames := func(from, to int, delayed bool) {
		defer readers.Done()
		buf := make([]byte, 1<<16)
		oob := make([]byte, 128)
		for !stopped.Load() {
			n, oobn, _, sa, err := unix.Recvmsg(from, buf, oob, 0)
			if err != nil {
				continue // timeout: look at stopped
			}
			if ll, ok := sa.(*unix.SockaddrLinklayer); ok && ll.Pkttype == unix.PACKET_OUTGOING {
				continue
			}
			if delayed && rand.Int64N(1000) < fw.loss.Load() {
				fw.dropped.Add(1)
				continue
			}
			fixChecksum(buf[:n])
			if delayed {
				queue <- held{read: arrival(oob[:oobn]), frame: append([]byte(nil), buf[:n]...)}
				continue
			}
			unix.Write(to, buf[:n])
		}
	}
	readers.Add(2)
	go copyFrames(fd0, fd1, false)
	go copyFrames(fd1, fd0, true)
	go func() {
		defer close(writer)
		for h := range queue {
			due := h.read.Add(delay)
			if d := time.Until(due) - time.Millisecond; d > 0 {
				time.Sleep(d) // not a wait: the link's delay, which the probe measures (rtt)
			}
			for time.Now().Before(due) { // the last millisecond, without the timer's slack
			}
			unix.Write(fd0, h.frame)
			d := int64(time.Since(h.read))
			if port, ok := tcpSourcePort(h.frame); ok {
				fw.mu.Lock()
				c := fw.byPort[port]
				fw.byPort[port] = [2]int64{c[0] + 1, c[1] + d}
				fw.mu.Unlock()
			}
		}
	}()
	fw.stop = func() {
		stopped.Store(true)
		readers.Wait() // within their 100 ms read timeout
		close(queue)
		<-writer
		unix.Close(fd0)
		unix.Close(fd1)
	}
	return fw
}

// rawSocket opens an AF_PACKET socket bound to an interface, reads timing out every 100 ms.
func rawSocket(name string) (int, error) {
	ifi, err := net.InterfaceByName(name)
	if err != nil {
		return -1, err
	}
	proto := int(uint16(unix.ETH_P_ALL)<<8 | uint16(unix.ETH_P_ALL)>>8)
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, proto)
	if err != nil {
		return -1, err
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		return -1, err
	}
	tv := unix.Timeval{Usec: 100000}
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	return fd, unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: uint16(proto), Ifindex: ifi.Index})
}

// fixChecksum computes the TCP or UDP checksum of an IPv4 frame: a sender's veth leaves it
// to the hardware (CHECKSUM_PARTIAL), and a frame written to a packet socket is taken as is.
func fixChecksum(f []byte) {
	if len(f) < 34 || f[12] != 0x08 || f[13] != 0x00 {
		return
	}
	ip := f[14:]
	ihl := int(ip[0]&0x0f) * 4
	total := int(ip[2])<<8 | int(ip[3])
	if total > len(ip) || ihl < 20 || total < ihl {
		return
	}
	l4 := ip[ihl:total]
	var at int
	switch {
	case ip[9] == 6 && len(l4) >= 20:
		at = 16
	case ip[9] == 17 && len(l4) >= 8:
		at = 6
	default:
		return
	}
	l4[at], l4[at+1] = 0, 0
	sum := uint32(0)
	add := func(b []byte) {
		for i := 0; i+1 < len(b); i += 2 {
			sum += uint32(b[i])<<8 | uint32(b[i+1])
		}
		if len(b)%2 == 1 {
			sum += uint32(b[len(b)-1]) << 8
		}
	}
	add(ip[12:20])
	sum += uint32(ip[9]) + uint32(len(l4))
	add(l4)
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	c := ^uint16(sum)
	if c == 0 && ip[9] == 17 {
		c = 0xffff
	}
	l4[at], l4[at+1] = byte(c>>8), byte(c)
}

// arrival reads the kernel's receive timestamp (SO_TIMESTAMPNS) from a message's control
// data; the current time without one.
func arrival(oob []byte) time.Time {
	msgs, _ := unix.ParseSocketControlMessage(oob)
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
			ts := (*unix.Timespec)(unsafe.Pointer(&m.Data[0]))
			return time.Unix(ts.Sec, ts.Nsec)
		}
	}
	return time.Now()
}
