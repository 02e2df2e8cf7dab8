package collect_test

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
	"github.com/fnapi/fnapi/internal/testutil"

	"github.com/fnapi/fnapi/examples/dataservice/collect"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// conv is one conversation of the test capture, with the client and server the collector must
// name, and what each side sent.
type conv struct {
	proto          uint8
	client, server netip.AddrPort
	toServer       []int // payload of each packet from the client
	toClient       []int // and from the server
}

// totals are what a conversation's records add up to, as the query answers them.
type totals struct{ clientBytes, serverBytes, clientPackets, serverPackets int64 }

var capture = []conv{
	{6, ap("10.0.0.5:51234"), ap("93.184.216.34:443"), []int{100, 101, 102, 103, 104}, []int{1000, 1000, 1000, 1000, 1000}},
	{17, ap("10.0.0.6:40000"), ap("10.0.0.53:53"), []int{30, 31}, []int{120, 130}},
	{6, ap("10.0.0.7:50000"), ap("10.0.0.8:8080"), []int{10}, []int{20, 30, 40}}, // both ephemeral: the lower port serves
	{1, ap("10.0.0.9:0"), ap("10.0.0.1:0"), []int{56, 56}, []int{56, 56}},        // ICMP: the lower address serves
	{17, ap("[2001:db8::10]:5353"), ap("[2001:db8::1]:53"), []int{50}, []int{200}},
}

func ap(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }

// writeCapture writes the capture with packets a second apart from start and returns what each
// conversation's records must add up to, by "client server protocol".
func writeCapture(t *testing.T, start time.Time, ipv6 bool) (string, map[string]totals) {
	var pkts []testenv.Packet
	want := map[string]totals{}
	at := start
	for _, c := range capture {
		if c.client.Addr().Is6() && !ipv6 {
			continue
		}
		var tot totals
		for i := range max(len(c.toServer), len(c.toClient)) {
			if i < len(c.toServer) {
				p := testenv.Packet{Time: at, Src: c.client.Addr(), Dst: c.server.Addr(), Protocol: c.proto,
					SrcPort: c.client.Port(), DstPort: c.server.Port(), Payload: c.toServer[i]}
				pkts = append(pkts, p)
				tot.clientBytes += int64(p.IPLength())
				tot.clientPackets++
			}
			if i < len(c.toClient) {
				p := testenv.Packet{Time: at.Add(100 * time.Millisecond), Src: c.server.Addr(), Dst: c.client.Addr(), Protocol: c.proto,
					SrcPort: c.server.Port(), DstPort: c.client.Port(), Payload: c.toClient[i]}
				pkts = append(pkts, p)
				tot.serverBytes += int64(p.IPLength())
				tot.serverPackets++
			}
			at = at.Add(time.Second)
		}
		want[fmt.Sprint(c.client, " ", c.server, " ", records.ProtocolName(c.proto))] = tot
	}
	path := filepath.Join(t.TempDir(), "capture.pcap")
	testenv.WritePcap(t, path, pkts)
	return path, want
}

// startCollector starts a collector storing into a fresh DuckDB store and listening for proto
// on a free port of 127.0.0.1.
func startCollector(t *testing.T, proto collect.Protocol) (*collect.Collector, *duckdb.Store, string) {
	t.Helper()
	store, err := duckdb.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	c := collect.New(store, nil, collect.Limits{FlushInterval: 20 * time.Millisecond})
	t.Cleanup(func() { c.Close() })
	addr, err := c.Listen(proto, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return c, store, addr.String()
}

// conversations answers the totals of every conversation stored, by "client server protocol".
func conversations(t *testing.T, store *duckdb.Store, now time.Time) map[string]totals {
	t.Helper()
	res, err := pvql.New(store).Query(context.Background(),
		"client.traffic, server.traffic, client.packets, server.packets BY client.ip, client.port, server.ip, server.port, protocol SINCE @now-7200 UNTIL @now+3600",
		now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]totals{}
	for _, row := range res[0].Data {
		k := row.Keys
		client := netip.AddrPortFrom(netip.MustParseAddr(k[0].(string)), uint16(k[1].(int64)))
		server := netip.AddrPortFrom(netip.MustParseAddr(k[2].(string)), uint16(k[3].(int64)))
		v := row.Values
		got[fmt.Sprint(client, " ", server, " ", k[4])] = totals{int64(v[0]), int64(v[1]), int64(v[2]), int64(v[3])}
	}
	return got
}

// waitFor queries until the stored conversations are want, or fails after a while with the
// difference.
func waitFor(t *testing.T, c *collect.Collector, store *duckdb.Store, want map[string]totals) {
	t.Helper()
	testutil.Until(t, testutil.Wait, "the stored conversations to be the capture's", func() error {
		got := conversations(t, store, time.Now())
		if maps.Equal(got, want) {
			return nil
		}
		var diff []string
		for _, k := range slices.Sorted(maps.Keys(want)) {
			diff = append(diff, fmt.Sprintf("%s: got %+v, want %+v", k, got[k], want[k]))
		}
		for k, v := range got {
			if _, ok := want[k]; !ok {
				diff = append(diff, fmt.Sprintf("%s: got %+v, want nothing", k, v))
			}
		}
		var m strings.Builder
		c.WriteMetrics(&m)
		return fmt.Errorf("they differ:\n%s\n%s", strings.Join(diff, "\n"), m.String())
	})
}

// TestSoftflowd replays a capture through softflowd as NetFlow v5, v9 and IPFIX: every
// conversation's totals equal the capture's, with the server the mapping names.
func TestSoftflowd(t *testing.T) {
	t.Parallel()
	for _, version := range []int{5, 9, 10} {
		t.Run(fmt.Sprint("v", version), func(t *testing.T) {
			c, store, addr := startCollector(t, collect.NetFlow)
			// NetFlow v5 carries IPv4 only.
			pcap, want := writeCapture(t, time.Now().Add(-2*time.Minute).Truncate(time.Second), version != 5)
			testenv.Softflowd(t, pcap, addr, version)
			waitFor(t, c, store, want)
			checkExporter(t, c, store, want)
		})
	}
}

// TestPmacctdSFlow replays the capture through pmacctd's sfprobe plugin, an sFlow v5 agent
// sampling every packet.
func TestPmacctdSFlow(t *testing.T) {
	t.Parallel()
	c, store, addr := startCollector(t, collect.SFlow)
	pcap, want := writeCapture(t, time.Now().Add(-2*time.Minute).Truncate(time.Second), true)
	testenv.Pmacctd(t, pcap, addr)
	waitFor(t, c, store, want)
	checkExporter(t, c, store, want)
}

// checkExporter checks that query answers the capture's totals for exporter 127.0.0.1, and no
// other exporter, and that the collector's metrics count its datagrams and flows.
func checkExporter(t *testing.T, c *collect.Collector, store *duckdb.Store, want map[string]totals) {
	t.Helper()
	res, err := pvql.New(store).Query(context.Background(), "traffic, packets BY exporter SINCE @now-7200 UNTIL @now+3600", time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var bytes, packets int64
	for _, tot := range want {
		bytes += tot.clientBytes + tot.serverBytes
		packets += tot.clientPackets + tot.serverPackets
	}
	rows := res[0].Data
	if len(rows) != 1 || rows[0].Keys[0] != "127.0.0.1" || int64(rows[0].Values[0]) != bytes || int64(rows[0].Values[1]) != packets {
		t.Errorf("traffic, packets BY exporter = %+v, want [[127.0.0.1] [%d %d]]", rows, bytes, packets)
	}
	var b strings.Builder
	c.WriteMetrics(&b)
	for _, name := range []string{"collector_datagrams_total", "collector_flows_total"} {
		if !strings.Contains(b.String(), name+`{exporter="127.0.0.1",`) {
			t.Errorf("metrics lack %s of 127.0.0.1:\n%s", name, b.String())
		}
	}
}
