package app_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestCollectNetFlow runs the service with -netflow, replays a capture through softflowd as
// NetFlow v9, and checks that query answers the capture's totals and /metrics counts the
// exporter.
func TestCollectNetFlow(t *testing.T) {
	t.Parallel()
	testenv.Need(t, "softflowd", "softflowd")
	s, a := startWith(t, app.Config{Inlet: inlet.Configuration{NetFlow: "127.0.0.1:0"}})
	addr, _ := a.FlowAddrs()
	start := time.Now().Add(-time.Minute).Truncate(time.Second)
	var pkts []testenv.Packet
	var bytes, packets float64
	for i := range 20 {
		p := testenv.Packet{Time: start.Add(time.Duration(i) * 100 * time.Millisecond), Protocol: 6,
			Src: netip.MustParseAddr("10.1.0.1"), Dst: netip.MustParseAddr("10.2.0.1"), SrcPort: 40000, DstPort: 443, Payload: 10 * i}
		if i%2 == 1 {
			p.Src, p.Dst, p.SrcPort, p.DstPort = p.Dst, p.Src, p.DstPort, p.SrcPort
		}
		pkts = append(pkts, p)
		bytes += float64(p.IPLength())
		packets++
	}
	pcap := filepath.Join(t.TempDir(), "c.pcap")
	testenv.WritePcap(t, pcap, pkts)
	testenv.Softflowd(t, pcap, addr, 9)

	c := s.http(t, client.WithAPIKey(s.key))
	var got []struct {
		Data [][2][]any `json:"data"`
	}
	testutil.Until(t, testutil.Wait, "the flow in a query", func() error {
		err := c.Call(context.Background(), "query", map[string]string{"expr": "traffic, packets BY server.ip SINCE @now-3600"}, &got)
		if err != nil {
			t.Fatal(err)
		}
		if len(got[0].Data) == 1 && got[0].Data[0][1][0] == bytes && got[0].Data[0][1][1] == packets {
			return nil
		}
		return fmt.Errorf("query answered %v", got[0].Data)
	})
	if len(got[0].Data) != 1 || got[0].Data[0][0][0] != "10.2.0.1" || got[0].Data[0][1][0] != bytes || got[0].Data[0][1][1] != packets {
		t.Fatalf("query answered %v, want [[10.2.0.1] [%v %v]]", got[0].Data, bytes, packets)
	}
	resp, err := s.srv.Client().Get(s.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{"fnapi_calls_total", `collector_flows_total{exporter="127.0.0.1",protocol="netflow"} 2`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}
}

// TestCollectContext replays a capture of three conversations through softflowd (NetFlow v9)
// into the service with zones and an application of the operator's defined: the totals by
// zone and application equal the capture's.
func TestCollectContext(t *testing.T) {
	t.Parallel()
	testenv.Need(t, "softflowd", "softflowd")
	s, a := startWith(t, app.Config{Inlet: inlet.Configuration{NetFlow: "127.0.0.1:0"}})
	c := s.http(t, client.WithAPIKey(s.key))
	ctx := context.Background()
	for _, z := range []api.SetZoneArgs{{Name: "HQ/Office", Networks: []string{"10.1.0.0/16"}}, {Name: "DC", Networks: []string{"10.2.0.0/16"}}} {
		if _, err := client.Call(ctx, c, api.SetZone, z); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.Call(ctx, c, api.SetApplication, api.SetApplicationArgs{Name: "intranet",
		Rules: []api.ApplicationRule{{Protocol: "tcp", Ports: "443", ServerZone: "DC"}}}); err != nil {
		t.Fatal(err)
	}
	addr, _ := a.FlowAddrs()
	start := time.Now().Add(-time.Minute).Truncate(time.Second)
	ip := netip.MustParseAddr
	convs := []struct {
		client, server netip.Addr
		cport, sport   uint16
		key            string // client zone, server zone, application
	}{
		{ip("10.1.0.1"), ip("10.2.0.1"), 40000, 443, "HQ/Office DC intranet"},
		{ip("10.1.0.2"), ip("192.0.2.10"), 40001, 443, "HQ/Office other https"},
		{ip("172.16.0.5"), ip("10.2.0.9"), 40002, 22, "other DC ssh"},
	}
	var pkts []testenv.Packet
	want := map[string][2]float64{}
	for k, cv := range convs {
		for i := range 10 {
			p := testenv.Packet{Time: start.Add(time.Duration(10*k+i) * 100 * time.Millisecond), Protocol: 6,
				Src: cv.client, Dst: cv.server, SrcPort: cv.cport, DstPort: cv.sport, Payload: 10*i + k}
			if i%2 == 1 {
				p.Src, p.Dst, p.SrcPort, p.DstPort = p.Dst, p.Src, p.DstPort, p.SrcPort
			}
			pkts = append(pkts, p)
			w := want[cv.key]
			want[cv.key] = [2]float64{w[0] + float64(p.IPLength()), w[1] + 1}
		}
	}
	pcap := filepath.Join(t.TempDir(), "c.pcap")
	testenv.WritePcap(t, pcap, pkts)
	testenv.Softflowd(t, pcap, addr, 9)

	got := map[string][2]float64{}
	testutil.Until(t, testutil.Wait, "the capture's traffic by zone and application", func() error {
		var res []struct {
			Data [][2][]any `json:"data"`
		}
		if err := c.Call(ctx, "query", map[string]string{"expr": "traffic, packets BY client.zone, server.zone, application SINCE @now-3600"}, &res); err != nil {
			t.Fatal(err)
		}
		got = map[string][2]float64{}
		for _, row := range res[0].Data {
			got[fmt.Sprintf("%v %v %v", row[0]...)] = [2]float64{row[1][0].(float64), row[1][1].(float64)}
		}
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return nil
		}
		return fmt.Errorf("by zone and application: %v, want the capture's %v", got, want)
	})
}

// TestCollectVendorTimes sends the service, over UDP, a NetFlow v9 flow as nProbe exports it
// with its latency and retransmission fields, and an IPFIX connection record as Cisco AVC
// exports it with its ART fields (templates then data, built byte by byte from the vendors'
// published field lists), and checks the query language's answers: round trips (twice
// nProbe's half round trips; Cisco's sums over new connections), connection and response
// times in seconds, their p95, and the retransmissions of each side.
func TestCollectVendorTimes(t *testing.T) {
	t.Parallel()
	s, a := startWith(t, app.Config{Inlet: inlet.Configuration{NetFlow: "127.0.0.1:0"}})
	addr, _ := a.FlowAddrs()
	u16 := func(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }
	u32 := func(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }
	u64 := func(b []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(b, v) }
	set := func(id uint16, body []byte) []byte { return append(u16(u16(nil, id), uint16(4+len(body))), body...) }
	export := time.Now()

	// nProbe, v9: addresses, ports, protocol, bytes, packets, uptimes of the first and last
	// packet, then RETRANSMITTED_IN_PKTS, _OUT_PKTS, CLIENT_ and SERVER_NW_LATENCY_MS and
	// APPL_LATENCY_MS (ntop's elements 109, 110, 123, 124, 125 as v9 types 57472 higher).
	fields := [][2]uint16{{8, 4}, {12, 4}, {7, 2}, {11, 2}, {4, 1}, {1, 4}, {2, 4}, {22, 4}, {21, 4},
		{57581, 4}, {57582, 4}, {57595, 4}, {57596, 4}, {57597, 4}}
	tpl := u16(u16(nil, 256), uint16(len(fields)))
	for _, f := range fields {
		tpl = u16(u16(tpl, f[0]), f[1])
	}
	data := append([]byte{10, 3, 0, 1, 10, 4, 0, 1}, 0xc3, 0x50, 0x01, 0xbb, 6) // 50000 -> 443, TCP
	data = u32(u32(u32(u32(data, 1500), 10), 55_000), 58_000)                   // 1.5 kB, 10 packets
	for _, v := range []uint32{2, 1, 3, 20, 150} {
		data = u32(data, v)
	}
	v9 := u16(u16(nil, 9), 2)
	v9 = u32(u32(u32(u32(v9, 60_000), uint32(export.Unix())), 1), 0) // uptime 60 s, sequence, source ID
	v9 = append(append(v9, set(0, tpl)...), set(256, data)...)

	// Cisco AVC, IPFIX, a record keyed by connection: client and server addresses, the server's
	// port, protocol, each side's bytes, start and end, then client, server and total network
	// time sums over new connections, the response time sum over responses, and each side's
	// retransmitted packets (Cisco's elements, enterprise 9).
	type ie struct {
		id, length uint16
		pen        uint32
	}
	ies := []ie{{12236, 4, 9}, {12237, 4, 9}, {12241, 2, 9}, {4, 1, 0}, {8338, 8, 9}, {8337, 8, 9}, {152, 8, 0}, {153, 8, 0},
		{9316, 4, 9}, {9319, 4, 9}, {9313, 4, 9}, {9282, 4, 9}, {9292, 4, 9}, {9303, 4, 9}, {9268, 4, 9}, {9270, 4, 9}}
	tpl = u16(u16(nil, 257), uint16(len(ies)))
	for _, f := range ies {
		if f.pen == 0 {
			tpl = u16(u16(tpl, f.id), f.length)
		} else {
			tpl = u32(u16(u16(tpl, f.id|0x8000), f.length), f.pen)
		}
	}
	data = append([]byte{10, 3, 0, 2, 10, 5, 0, 1}, 0x01, 0xbb, 6)
	data = u64(u64(data, 800), 20_000)
	data = u64(u64(data, uint64(export.Add(-40*time.Second).UnixMilli())), uint64(export.Add(-39*time.Second).UnixMilli()))
	for _, v := range []uint32{10, 60, 70, 2, 2, 400, 4, 3} {
		data = u32(data, v)
	}
	body := append(set(2, tpl), set(257, data)...)
	ipfix := u16(u16(nil, 10), uint16(16+len(body)))
	ipfix = append(u32(u32(u32(ipfix, uint32(export.Unix())), 1), 0), body...)

	conn, err := net.Dial("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, d := range [][]byte{v9, ipfix} {
		if _, err := conn.Write(d); err != nil {
			t.Fatal(err)
		}
	}

	c := s.http(t, client.WithAPIKey(s.key))
	want := map[string][]float64{ // client.rtt, server.rtt, ct, srt, p95(srt), client.retrans, server.retrans
		"10.4.0.1": {0.006, 0.04, 0.046, 0.15, 0.15, 2, 1},
		"10.5.0.1": {0.005, 0.03, 0.035, 0.2, 0.2, 4, 3},
	}
	var got []struct {
		Data [][2][]any `json:"data"`
	}
	testutil.Until(t, testutil.Wait, "both servers in a query", func() error {
		err := c.Call(context.Background(), "query", map[string]string{"expr": "client.rtt, server.rtt, ct, srt, p95(srt), client.retrans, server.retrans BY server.ip SINCE @now-3600"}, &got)
		if err != nil {
			t.Fatal(err)
		}
		if len(got[0].Data) == len(want) {
			return nil
		}
		return fmt.Errorf("query answered %v", got[0].Data)
	})
	if len(got[0].Data) != len(want) {
		t.Fatalf("query answered %v, want the servers 10.4.0.1 (nProbe) and 10.5.0.1 (Cisco)", got[0].Data)
	}
	for _, row := range got[0].Data {
		server, _ := row[0][0].(string)
		for i, w := range want[server] {
			v, ok := row[1][i].(float64)
			if !ok || math.Abs(v-w) > w*histogram.RelativeError {
				t.Errorf("%s: value %d is %v, want %v (within 2 %%): %v", server, i, row[1][i], w, row[1])
			}
		}
	}
	// The Cisco record's sides are the exporter's: the client's bytes its own.
	err = c.Call(context.Background(), "query", map[string]string{"expr": "client.traffic, server.traffic WHERE server.ip = 10.5.0.1 SINCE @now-3600"}, &got)
	if err != nil || len(got[0].Data) != 1 || got[0].Data[0][1][0] != 800.0 || got[0].Data[0][1][1] != 20_000.0 {
		t.Errorf("Cisco connection's bytes: %v, %v; want client 800, server 20000", got, err)
	}
}
