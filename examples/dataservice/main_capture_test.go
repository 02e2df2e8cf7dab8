package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// captureScript writes, with scapy, one HTTP conversation ten minutes ago (T0, a minute's
// start) to the file argv[1]: the handshake gives server.rtt 40 ms (SYN to SYN-ACK) and ct 41 ms,
// the request's ACK a second server.rtt sample of 40 ms, the server's think time an srt of
// 140 ms (request at 42 ms, first response packet at 182 ms), and the server sends its second
// segment again after the client acknowledged it: one server retransmission.
const captureScript = `import sys, time
from scapy.all import *
T0 = (int(time.time()) // 60 - 10) * 60
def tcp(src, dst, sport, dport, flags, seq, ack, load=b"", t=0.0):
    p = Ether()/IP(src=src, dst=dst)/TCP(sport=sport, dport=dport, flags=flags, seq=seq, ack=ack)
    if load:
        p = p/Raw(load)
    p.time = T0 + t
    return p
C, S = "10.0.0.1", "10.0.0.2"
get = b"GET / HTTP/1.1\r\nHost: Example.COM:8080\r\n\r\n"
n = len(get)
wrpcap(sys.argv[1], [
  tcp(C, S, 40000, 80, "S", 100, 0, t=0.000),
  tcp(S, C, 80, 40000, "SA", 500, 101, t=0.040),
  tcp(C, S, 40000, 80, "A", 101, 501, t=0.041),
  tcp(C, S, 40000, 80, "PA", 101, 501, get, t=0.042),
  tcp(S, C, 80, 40000, "A", 501, 101+n, t=0.082),
  tcp(S, C, 80, 40000, "A", 501, 101+n, b"x"*1000, t=0.182),
  tcp(S, C, 80, 40000, "PA", 1501, 101+n, b"x"*1000, t=0.183),
  tcp(C, S, 40000, 80, "A", 101+n, 2501, t=0.184),
  tcp(S, C, 80, 40000, "PA", 1501, 101+n, b"x"*1000, t=0.190),
  tcp(C, S, 40000, 80, "FA", 101+n, 2501, t=0.200),
  tcp(S, C, 80, 40000, "FA", 2501, 102+n, t=0.240),
  tcp(C, S, 40000, 80, "A", 102+n, 2502, t=0.241),
])
`

// TestCommandLineCaptureFile runs the service with -capture-file on a capture made by scapy,
// and finds the conversation's measures through query (server.rtt, srt, ct, retrans,
// server.name), collector-status and /metrics.
func TestCommandLineCaptureFile(t *testing.T) {
	t.Parallel()
	py := needScapy(t)
	dir := t.TempDir()
	pcap := filepath.Join(dir, "http.pcap")
	if b, err := exec.Command(py, "-c", captureScript, pcap).CombinedOutput(); err != nil {
		t.Fatalf("scapy: %v\n%s", err, b)
	}
	data := t.TempDir()
	p := startService(t, "-addr", "127.0.0.1:0", "-data", data, "-capture-file", pcap, "-metrics", "127.0.0.1:0")
	ctx := context.Background()
	c := adminClient(t, p, data)
	var res []struct{ Data [][2][]any }
	testutil.Eventually(t, "the capture's records in a query", func() bool {
		err := c.Call(ctx, "query", map[string]any{"expr": "server.rtt, srt, ct, retrans, server.retrans, client.retrans, records BY server.name, application SINCE @now-3600"}, &res)
		if err != nil {
			t.Fatal(err)
		}
		return len(res[0].Data) > 0
	})
	if len(res[0].Data) != 1 {
		t.Fatalf("query answered %v, want one group", res[0].Data)
	}
	row := res[0].Data[0]
	if got := fmt.Sprint(row[0]); got != "[example.com http]" {
		t.Errorf("keys %s, want [example.com http]", got)
	}
	want := []float64{0.040, 0.140, 0.041, 1, 1, 0, 1}
	for i, w := range want {
		v, ok := row[1][i].(float64)
		if !ok || math.Abs(v-w) > 2e-6 {
			t.Errorf("value %d = %v, want %v (values %v)", i, row[1][i], w, row[1])
		}
	}
	var st struct {
		Capture struct {
			Sources                  []string
			Finished                 int
			Packets, Records, Stored uint64
		}
	}
	if err := c.Call(ctx, "collector-status", nil, &st); err != nil {
		t.Fatal(err)
	}
	// Two records: the conversation's (the transport's, the only one the query above reads)
	// and its request's (FROM http).
	if got, want := fmt.Sprint(st.Capture), fmt.Sprintf("{[%s] 1 12 2 2}", pcap); got != want {
		t.Errorf("collector-status capture %s, want %s", got, want)
	}
	resp, err := http.Get(p.metrics)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "\ncapture_packets_total 12\n") {
		t.Errorf("/metrics lacks the probe's 12 packets:\n%s", body)
	}
	p.stop(t)
}

// TestCommandLineCaptureErrors checks the one-line errors of the capture flags.
func TestCommandLineCaptureErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-capture-filter", "tcp"}, "-capture-filter filters the capture probe's packets"},
		{[]string{"-capture-file", "/nonexistent.pcap"}, "-capture-file /nonexistent.pcap: no such file"},
		{[]string{"-capture", "a,,b"}, "an empty interface name"},
		{[]string{"-capture-sensor", "192.0.2.1"}, "-capture-sensor names the capture probe's sensor: give -capture"},
		{[]string{"-capture-sensor", "fe80::1%eth0"}, "is not an address without a zone"},
		{[]string{"-capture-sensor", "0.0.0.0"}, "0.0.0.0 names no sensor"},
	} {
		_, err := parseFlags(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", tc.args, err, tc.want)
		}
	}
}

// needScapy returns the Python that has scapy, or skips t (fails it under CI=true).
func needScapy(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import scapy.all").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("scapy through %s: %v", py, err)
		}
		t.Skipf("scapy through %s is missing (apt-get install python3-scapy): %v", py, err)
	}
	return py
}

// sensorScript writes, with scapy, argv[3] HTTP conversations from clients 10.<argv[2]>.0.x to
// 10.0.0.2 ten minutes ago to the file argv[1], argv[4] seconds apart (default 1). Each is 6
// packets of 1340 IP bytes: the client sends 4 (a SYN, two ACKs and a request of 100 bytes:
// 260 bytes), the server 2 (a SYN-ACK and a response of 1000 bytes: 1080 bytes); the i-th
// (from 0) answers its request after 140+3i ms (with argv[4]; 140 ms without).
const sensorScript = `import sys, time
from scapy.all import *
T0 = (int(time.time()) // 60 - 10) * 60
S = "10.0.0.2"
gap = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
pkts = []
for i in range(int(sys.argv[3])):
    C = "10.%s.0.%d" % (sys.argv[2], i + 1)
    think = 0.003 * i if len(sys.argv) > 4 else 0.0
    def tcp(src, dst, sport, dport, flags, seq, ack, load=b"", t=0.0):
        p = Ether()/IP(src=src, dst=dst)/TCP(sport=sport, dport=dport, flags=flags, seq=seq, ack=ack)
        if load:
            p = p/Raw(load)
        p.time = T0 + i * gap + t
        return p
    pkts += [
      tcp(C, S, 40000, 80, "S", 100, 0, t=0.000),
      tcp(S, C, 80, 40000, "SA", 500, 101, t=0.040),
      tcp(C, S, 40000, 80, "A", 101, 501, t=0.041),
      tcp(C, S, 40000, 80, "PA", 101, 501, b"q"*100, t=0.042),
      tcp(S, C, 80, 40000, "PA", 501, 201, b"r"*1000, t=0.182 + think),
      tcp(C, S, 40000, 80, "A", 201, 1501, t=0.183 + think),
    ]
wrpcap(sys.argv[1], pkts)
`

// TestCaptureDifferential reads one capture file (40 conversations over two minutes, each with
// its own response time) into DuckDB and into ClickHouse: every measure and percentile of the
// probe answers the same on both, by conversation, by minute and application, and in total;
// and on DuckDB the same from its rollups as from its records (a WHERE on client.port, which no
// rollup keeps, makes a statement read the records).
func TestCaptureDifferential(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts ClickHouse and the service twice")
	}
	py := needScapy(t)
	ch := testenv.ClickHouse(t)
	pcap := filepath.Join(t.TempDir(), "many.pcap")
	if b, err := exec.Command(py, "-c", sensorScript, pcap, "1", "40", "3").CombinedOutput(); err != nil {
		t.Fatalf("scapy: %v\n%s", err, b)
	}
	const stmts = "server.rtt, client.rtt, rtt, ct, srt, dtt, eurt, p50(srt), p95(srt), p99(server.rtt), max(ct), " +
		"retrans, resets, traffic, records%[1]s BY client.ip SINCE @now-3600; " +
		"srt, p95(srt), max(srt), eurt, records%[1]s BY time(60), application SINCE @now-3600; " +
		"rtt, p50(dtt), p99(srt), records%[1]s SINCE @now-3600"
	answer := func(c *client.Client, where string) string {
		var res []struct{ Data json.RawMessage }
		if err := c.Call(context.Background(), "query", map[string]any{"expr": fmt.Sprintf(stmts, where)}, &res); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		return string(b)
	}
	var answers []string
	for _, engine := range [][]string{nil, {"-clickhouse", ch.URL}} {
		data := t.TempDir()
		p := startService(t, append([]string{"-addr", "127.0.0.1:0", "-data", data, "-capture-file", pcap}, engine...)...)
		c := adminClient(t, p, data)
		var st struct {
			Capture struct {
				Finished                 int
				Packets, Records, Stored uint64
			}
		}
		testutil.Until(t, testutil.Wait, "the file read and its records stored", func() error {
			if err := c.Call(context.Background(), "collector-status", nil, &st); err != nil {
				t.Fatal(err)
			}
			if st.Capture.Finished != 1 || st.Capture.Stored != st.Capture.Records {
				return fmt.Errorf("the probe read %+v", st.Capture)
			}
			return nil
		})
		if st.Capture.Finished != 1 || st.Capture.Packets != 240 || st.Capture.Stored != st.Capture.Records {
			t.Fatalf("%v: the probe read %+v, want the file finished, its 240 packets, every record stored", engine, st.Capture)
		}
		answers = append(answers, answer(c, ""))
		if engine == nil {
			if records := answer(c, " WHERE client.port > 0"); records != answers[0] {
				t.Errorf("DuckDB from its rollups\n%s\nfrom its records\n%s", answers[0], records)
			}
		}
		p.stop(t)
	}
	if answers[0] != answers[1] {
		t.Errorf("DuckDB answered\n%s\nClickHouse answered\n%s", answers[0], answers[1])
	}
	// The response times spread from 140 to 257 ms: the percentiles differ from the average.
	for _, want := range []string{`"10.1.0.40"`, `[0.04,0.001,0.041,0.041,`} {
		if !strings.Contains(answers[0], want) {
			t.Errorf("the answer lacks %s: %s", want, answers[0])
		}
	}
}

// TestCaptureSensors runs two capturing nodes, each reading its own capture file with its own
// -capture-sensor address, into one ClickHouse and one PostgreSQL: a query by exporter on
// either node answers both sensors' records with their totals, and the two nodes made one
// "Application performance" dashboard between them.
func TestCaptureSensors(t *testing.T) {
	// Serial: t.Setenv sets the environment the service's process inherits.
	if testing.Short() {
		t.Skip("starts ClickHouse, PostgreSQL and two nodes")
	}
	py := needScapy(t)
	ch := testenv.ClickHouse(t)
	pg := testenv.StartPostgres(t)
	db := pg.Database(t)
	t.Setenv("SVC_ADMIN_PASSWORD", adminPassword)
	sensors := []struct {
		addr, net string
		convs     int
	}{{"192.0.2.11", "1", 3}, {"2001:db8::12", "2", 5}}
	var nodes []*process
	for _, s := range sensors {
		pcap := filepath.Join(t.TempDir(), "sensor.pcap")
		if b, err := exec.Command(py, "-c", sensorScript, pcap, s.net, fmt.Sprint(s.convs)).CombinedOutput(); err != nil {
			t.Fatalf("scapy: %v\n%s", err, b)
		}
		nodes = append(nodes, startService(t, "-addr", "127.0.0.1:0", "-data", t.TempDir(), "-postgres", db, "-clickhouse", ch.URL,
			"-capture-file", pcap, "-capture-sensor", s.addr))
	}
	ctx := context.Background()
	want := `[[["2001:db8::12"],[5,30,6700,1300,5400]],[["192.0.2.11"],[3,18,4020,780,3240]]]`
	for i, n := range nodes {
		c := login(t, n)
		expr := map[string]any{"expr": "records, packets, traffic, client.traffic, server.traffic BY exporter SINCE @now-3600"}
		var got string
		testutil.Until(t, testutil.Wait, fmt.Sprintf("node %d's answer by exporter", i+1), func() error {
			if got = query(t, c, expr); got != want {
				return fmt.Errorf("by exporter %s, want %s", got, want)
			}
			return nil
		})
		if got != want {
			t.Errorf("node %d: by exporter %s, want %s", i+1, got, want)
		}
		var list []struct{ Title string }
		if err := c.Call(ctx, "list-dashboards", nil, &list); err != nil || len(list) != 1 || list[0].Title != "Application performance" {
			t.Errorf("node %d: dashboards %+v, %v; want one Application performance", i+1, list, err)
		}
	}
	for _, n := range nodes {
		n.stop(t)
	}
}

// login logs in as admin, with the password of SVC_ADMIN_PASSWORD, to the service p.
func login(t *testing.T, p *process) *client.Client {
	t.Helper()
	anon, _ := client.New(p.url+"/api", client.WithHTTPClient(insecure()))
	var session string
	if err := anon.Call(context.Background(), "login", map[string]string{"user": "admin", "password": adminPassword}, &session); err != nil {
		t.Fatal(err)
	}
	c, _ := client.New(p.url+"/api", client.WithHTTPClient(insecure()), client.WithSession(session))
	return c
}

// TestCaptureLiveSensor runs the service capturing live (-capture r1, no -capture-sensor) in a
// network namespace, where r1 has the address 192.0.2.7, and connects three times from another
// namespace to a closed port there: the three conversations (SYN, reset) are stored with r1's
// address as their exporter.
func TestCaptureLiveSensor(t *testing.T) {
	// Serial: it names its network namespaces and addresses.
	needNetns(t)
	id := fmt.Sprintf("sen%d", os.Getpid()%100000)
	probe, peer := id+"p", id+"c"
	run := func(name string, args ...string) {
		t.Helper()
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	for _, ns := range []string{probe, peer} {
		run("ip", "netns", "add", ns)
		t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
		run("ip", "-n", ns, "link", "set", "lo", "up")
		// No IPv6 (its neighbour discovery would add records): only the test's packets pass.
		run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1")
	}
	run("ip", "link", "add", "r1", "netns", probe, "type", "veth", "peer", "name", "r0", "netns", peer)
	run("ip", "-n", probe, "addr", "add", "192.0.2.7/24", "dev", "r1")
	run("ip", "-n", peer, "addr", "add", "192.0.2.8/24", "dev", "r0")
	run("ip", "-n", probe, "link", "set", "r1", "up")
	run("ip", "-n", peer, "link", "set", "r0", "up")

	data := t.TempDir()
	p := startServiceIn(t, probe, "-addr", "127.0.0.1:0", "-data", data, "-capture", "r1")
	c := nsClient(t, probe, p, data)
	ctx := context.Background()
	for range 3 {
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if conn, err := dialIn(dctx, peer, "tcp", "192.0.2.7:9"); err == nil {
			conn.Close()
			t.Fatal("port 9 answered")
		}
		cancel()
	}
	testutil.Until(t, time.Minute, "the probe counts the 6 packets", func() error {
		var st struct{ Capture struct{ Packets uint64 } }
		if err := c.Call(ctx, "collector-status", nil, &st); err != nil {
			return err
		}
		if st.Capture.Packets < 6 {
			return fmt.Errorf("%d packets", st.Capture.Packets)
		}
		return nil
	})
	p.stop(t) // stopping flushes the table: the records are stored
	p = startServiceIn(t, probe, "-addr", "127.0.0.1:0", "-data", data)
	want := `[[["192.0.2.7"],[3,6]]]`
	if got := query(t, nsClient(t, probe, p, data), map[string]any{"expr": "records, packets BY exporter SINCE @now-3600"}); got != want {
		t.Errorf("by exporter %s, want %s", got, want)
	}
	p.stop(t)
}
