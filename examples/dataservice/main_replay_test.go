package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// replayScript writes, with scapy, argv[2] HTTP conversations of 6 packets each (as
// sensorScript's: a handshake, a request of 100 bytes, a response of 1000 bytes and its
// ACK) to the file argv[1], from clients 10.X.Y.Z to servers 10.200.0.1-10.
const replayScript = `import sys
from scapy.all import *
n = int(sys.argv[2])
tmpl = []
for flags, fwd, load in [("S", 1, b""), ("SA", 0, b""), ("A", 1, b""), ("PA", 1, b"q"*100), ("PA", 0, b"r"*1000), ("A", 1, b"")]:
    tmpl.append((flags, fwd, load))
pkts = []
t = 1700000000.0
for i in range(n):
    C, S = "10.%d.%d.%d" % (1 + i // 65536, (i // 256) % 256, i % 256), "10.200.0.%d" % (1 + i % 10)
    sport = 10000 + i % 50000
    for flags, fwd, load in tmpl:
        src, dst, sp, dp = (C, S, sport, 80) if fwd else (S, C, 80, sport)
        p = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")/IP(src=src, dst=dst)/TCP(sport=sp, dport=dp, flags=flags, seq=1000, ack=1000)
        if load:
            p = p/Raw(load)
        p.time = t
        t += 0.00001
        pkts.append(p)
wrpcap(sys.argv[1], pkts)
`

// BenchmarkCaptureReplay replays a capture of many conversations with tcpreplay into a veth
// pair in a network namespace where the service captures live (-capture): once as fast as one
// tcpreplay sends (--topspeed), once as fast as two send side by side (the second's addresses
// moved to 11.0.0.0/8 by tcprewrite, so that its conversations are others: one tcpreplay alone
// may not send 500,000 packets/s on a small machine), and once at 100,000 packets/s. It reports
// the packets sent per second (tcpreplay's figures), those the probe handled per second (from
// its first to its last), what the kernel's ring dropped, the conversations the table evicted
// and the records stored, and requires every packet sent to be handled or counted as dropped.
// Root, ip netns, tcpreplay, tcprewrite and scapy; -benchtime 1x (see BENCHMARKS.md).
func BenchmarkCaptureReplay(b *testing.B) {
	needReplay(b)
	const convs, loops = 10000, 5 // 60,000 packets a loop; --unique-ip makes each loop's flows new
	dir := b.TempDir()
	pcap, moved := filepath.Join(dir, "replay.pcap"), filepath.Join(dir, "replay11.pcap")
	if out, err := exec.Command("/usr/bin/python3", "-c", replayScript, pcap, fmt.Sprint(convs)).CombinedOutput(); err != nil {
		b.Fatalf("scapy: %v\n%s", err, out)
	}
	if out, err := exec.Command("tcprewrite", "--pnat=10.0.0.0/8:11.0.0.0/8", "-i", pcap, "-o", moved).CombinedOutput(); err != nil {
		b.Fatalf("tcprewrite: %v\n%s", err, out)
	}
	for _, c := range []struct {
		name, rate string
		pcaps      []string
	}{
		{"topspeed", "--topspeed", []string{pcap}},
		{"topspeed_x2", "--topspeed", []string{pcap, moved}},
		{"pps=100000", "--pps=100000", []string{pcap}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				replayOnce(b, c.pcaps, c.rate, len(c.pcaps)*convs*6*loops, loops)
			}
		})
	}
}

// replayOnce starts a capturing service in a new namespace, replays each of pcaps into it at
// once, a tcpreplay each, and reports what the probe made of the sent packets.
func replayOnce(b *testing.B, pcaps []string, rate string, sent, loops int) {
	b.StopTimer()
	ns := fmt.Sprintf("rep%d", os.Getpid()%100000)
	run := func(name string, args ...string) {
		b.Helper()
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run("ip", "netns", "add", ns)
	defer exec.Command("ip", "netns", "del", ns).Run()
	run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1")
	run("ip", "-n", ns, "link", "add", "r0", "type", "veth", "peer", "name", "r1")
	run("ip", "-n", ns, "addr", "add", "192.0.2.7/24", "dev", "r1") // the sensor's address
	for _, l := range []string{"lo", "r0", "r1"} {
		run("ip", "-n", ns, "link", "set", l, "up")
	}
	data := b.TempDir()
	p := startServiceIn(b, ns, "-addr", "127.0.0.1:0", "-data", data, "-capture", "r1") // killed at cleanup
	c := nsClient(b, ns, p, data)
	type capture struct{ Packets, Drops, Evicted, Records, Stored uint64 }
	poll := func(ctx context.Context) (capture, error) {
		var res struct{ Capture capture }
		err := c.Call(ctx, "collector-status", nil, &res)
		return res.Capture, err
	}
	status := func() capture {
		st, err := poll(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		return st
	}

	b.StartTimer()
	cpu0 := cpuTime(b, p.cmd.Process.Pid)
	// The probe's rate runs from its first handled packet (tcpreplay loads its file first),
	// seen by polling every few milliseconds, to its last. A failed poll is tried again: taking
	// its moment as the start would understate the probe's rate.
	polling, stopPolling := context.WithCancel(context.Background())
	defer stopPolling()
	first := make(chan time.Time, 1)
	go func() {
		tick := time.NewTicker(2 * time.Millisecond) // the start's precision
		defer tick.Stop()
		for {
			if st, err := poll(polling); err == nil && st.Packets+st.Drops > 0 {
				first <- time.Now()
				return
			}
			select {
			case <-polling.Done():
				return
			case <-tick.C:
			}
		}
	}()
	outs := make([][]byte, len(pcaps))
	errs := make([]error, len(pcaps))
	var wg sync.WaitGroup
	for i, pcap := range pcaps {
		wg.Go(func() {
			outs[i], errs[i] = exec.Command("ip", "netns", "exec", ns, "tcpreplay", "-i", "r0", "--preload-pcap", rate, fmt.Sprintf("--loop=%d", loops), "--unique-ip", pcap).CombinedOutput()
		})
	}
	wg.Wait()
	// tcpreplay's own figures: "Actual: 300000 packets (71100000 bytes) sent in 0.38 seconds".
	// The senders start together, so together they sent their packets in the longest one's time.
	var sending float64
	for i, out := range outs {
		if errs[i] != nil {
			b.Fatalf("tcpreplay: %v\n%s", errs[i], out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) > 2 && f[0] == "Actual:" && f[len(f)-1] == "seconds" {
				secs, err := strconv.ParseFloat(f[len(f)-2], 64)
				if err != nil {
					b.Fatalf("tcpreplay's %q: %v", line, err)
				}
				sending = max(sending, secs)
			}
		}
	}
	// The probe has handled everything once its count stops moving.
	var st capture
	last := time.Now()
	tick := time.NewTicker(5 * time.Millisecond) // the end's precision
	defer tick.Stop()
	for prev := uint64(0); ; prev = st.Packets + st.Drops {
		<-tick.C
		st = status()
		if st.Packets+st.Drops != prev {
			last = time.Now()
		} else if st.Packets+st.Drops >= uint64(sent) || time.Since(last) > 3*time.Second {
			break
		}
	}
	if st.Packets+st.Drops == 0 {
		b.Fatalf("the probe handled none of the %d packets sent", sent) // first never comes
	}
	var start time.Time
	select {
	case start = <-first:
	case <-time.After(10 * time.Second):
		b.Fatal("no poll saw the probe's first packet, though the last ones did")
	}
	handled := last.Sub(start)
	cpu := cpuTime(b, p.cmd.Process.Pid) - cpu0 // to the last poll, a few ms idle past the last change
	b.StopTimer()
	// Stopping flushes the tables: every conversation's record is stored. The service started
	// again without -capture answers what was stored.
	p.stop(b)
	p = startServiceIn(b, ns, "-addr", "127.0.0.1:0", "-data", data)
	c = nsClient(b, ns, p, data)
	var res []struct{ Data [][2][]float64 }
	var by []struct{ Data [][2][]any }
	if err := c.Call(context.Background(), "query", map[string]any{"expr": "records, packets SINCE @now-3600"}, &res); err != nil {
		b.Fatal(err)
	}
	if err := c.Call(context.Background(), "query", map[string]any{"expr": "records BY exporter SINCE @now-3600"}, &by); err != nil {
		b.Fatal(err)
	}
	p.stop(b)
	stored := res[0].Data[0][1]
	b.ReportMetric(float64(st.Packets)/handled.Seconds(), "handled-pkts/s")
	b.ReportMetric(float64(sent)/sending, "sent-pkts/s")
	b.ReportMetric(float64(st.Drops), "ring-drops")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(st.Packets), "service-cpu-ns/pkt")
	b.ReportMetric(float64(st.Evicted), "evicted")
	b.ReportMetric(stored[0], "records")
	b.Logf("%s: sent %d packets in %.3f s; the probe handled %d in %v (the service's CPU %v), the ring dropped %d, the table evicted %d; stored %v records of %v packets, by sensor %v",
		rate, sent, sending, st.Packets, handled.Round(time.Millisecond), cpu, st.Drops, st.Evicted, stored[0], stored[1], by[0].Data)
	if got := st.Packets + st.Drops; got < uint64(sent) || got > uint64(sent)+100 {
		b.Errorf("handled %d + dropped %d = %d of %d packets sent: not every packet counted", st.Packets, st.Drops, got, sent)
	}
	if stored[1] != float64(st.Packets) {
		b.Errorf("the records hold %v packets, the probe handled %d", stored[1], st.Packets)
	}
	if len(by[0].Data) != 1 || fmt.Sprint(by[0].Data[0][0]) != "[192.0.2.7]" {
		b.Errorf("records by exporter %v, want every record from the sensor 192.0.2.7 (r1's address)", by[0].Data)
	}
}

// cpuTime returns the CPU time (user and system) process pid has used so far, from
// /proc/PID/stat, in clock ticks of 10 ms.
func cpuTime(b *testing.B, pid int) time.Duration {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command's name (in parentheses, which may hold spaces): utime and
	// stime are the 12th and 13th.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			b.Fatalf("/proc/%d/stat: %v", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// needReplay skips (fails under CI=true) unless the benchmark can make network namespaces
// and has tcpreplay, tcprewrite and scapy.
func needReplay(b *testing.B) {
	needNetns(b)
	if err := exec.Command("/usr/bin/python3", "-c", "import scapy.all").Run(); err != nil {
		if testenv.CI() {
			b.Fatal("no scapy through /usr/bin/python3 (apt-get install python3-scapy)")
		}
		b.Skip("no scapy through /usr/bin/python3 (apt-get install python3-scapy)")
	}
	testenv.Need(b, "tcpreplay", "tcpreplay")
	testenv.Need(b, "tcprewrite", "tcpreplay")
}

// needNetns skips (fails under CI=true) unless the test can make network namespaces.
func needNetns(t testing.TB) {
	t.Helper()
	why := ""
	switch {
	case os.Geteuid() != 0:
		why = "not root"
	case exec.Command("ip", "netns", "list").Run() != nil:
		why = "no ip netns (apt-get install iproute2)"
	}
	if why != "" {
		if testenv.CI() {
			t.Fatal("network namespaces: " + why)
		}
		t.Skip("network namespaces: " + why)
	}
}

// nsClient logs in as admin to the service p, which runs in network namespace ns and keeps
// its data in data, through connections made in ns.
func nsClient(b testing.TB, ns string, p *process, data string) *client.Client {
	b.Helper()
	pw, err := os.ReadFile(filepath.Join(data, "admin-password"))
	if err != nil {
		b.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return dialIn(ctx, ns, network, addr)
		}}}
	anon, _ := client.New(p.url+"/api", client.WithHTTPClient(hc))
	var session string
	if err := anon.Call(context.Background(), "login", map[string]string{"user": "admin", "password": strings.TrimSpace(string(pw))}, &session); err != nil {
		b.Fatal(err)
	}
	c, _ := client.New(p.url+"/api", client.WithHTTPClient(hc), client.WithSession(session))
	return c
}

// dialIn dials addr from network namespace ns, on a thread moved there and never given back
// (it ends with its goroutine); the connection stays in ns.
func dialIn(ctx context.Context, ns, network, addr string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		f, err := os.Open("/run/netns/" + ns)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- result{err: fmt.Errorf("setns %s: %w", ns, err)}
			return
		}
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		done <- result{c, err}
	}()
	r := <-done
	return r.c, r.err
}
