package app_test

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestCollectNetFlow runs the service with -netflow, replays a capture through softflowd as
// NetFlow v9, and checks that query answers the capture's totals and /metrics counts the
// exporter.
func TestCollectNetFlow(t *testing.T) {
	t.Parallel()
	testenv.Need(t, "softflowd", "softflowd")
	s, a := startWith(t, app.Config{NetFlow: "127.0.0.1:0"})
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
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		err := c.Call(context.Background(), "query", map[string]string{"expr": "traffic, packets BY server.ip SINCE @now-3600"}, &got)
		if err != nil {
			t.Fatal(err)
		}
		if len(got[0].Data) == 1 && got[0].Data[0][1][0] == bytes && got[0].Data[0][1][1] == packets {
			break
		}
	}
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
	s, a := startWith(t, app.Config{NetFlow: "127.0.0.1:0"})
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
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
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
			return
		}
	}
	t.Fatalf("by zone and application: %v, want the capture's %v", got, want)
}
