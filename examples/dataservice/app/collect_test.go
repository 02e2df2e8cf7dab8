package app_test

import (
	"context"
	"io"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/client"
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
