package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/internal/testutil"
)

// TestCommandLineFlows runs the service with -netflow and -sflow on free ports, sends a NetFlow
// v5 datagram, and finds its flow through query, /metrics and collector-status (with the
// addresses the log names); SIGTERM still exits cleanly.
func TestCommandLineFlows(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	p := startService(t, "-addr", "127.0.0.1:0", "-data", data, "-netflow", "127.0.0.1:0", "-sflow", "127.0.0.1:0",
		"-metrics", "127.0.0.1:0")
	if p.flows["netflow"] == "" || p.flows["sflow"] == "" {
		t.Fatalf("no 'collecting flows' lines for both collectors:\n%s", p.log)
	}
	// A NetFlow v5 datagram: one flow of 3 packets, 1500 bytes, 10.9.0.1:40000 -> 10.9.0.2:22,
	// in the second before the export.
	d := binary.BigEndian.AppendUint16(nil, 5)
	d = binary.BigEndian.AppendUint16(d, 1)
	d = binary.BigEndian.AppendUint32(d, 60_000)                    // uptime
	d = binary.BigEndian.AppendUint32(d, uint32(time.Now().Unix())) // export time
	d = append(d, make([]byte, 12)...)                              // nanoseconds, sequence, engine, sampling
	d = append(d, 10, 9, 0, 1, 10, 9, 0, 2, 0, 0, 0, 0, 0, 1, 0, 2)
	for _, v := range []uint32{3, 1500, 59_000, 60_000} {
		d = binary.BigEndian.AppendUint32(d, v)
	}
	d = append(d, 0x9c, 0x40, 0, 22, 0, 0, 6, 0)
	d = append(d, make([]byte, 8)...)
	conn, err := net.Dial("udp", p.flows["netflow"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write(d); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	c := adminClient(t, p, data)
	var res []struct{ Data [][2][]any }
	testutil.Eventually(t, "the flows in a query", func() bool {
		err := c.Call(ctx, "query", map[string]any{"expr": "traffic, packets BY exporter, client.ip, server.port, application SINCE @now-600"}, &res)
		if err != nil {
			t.Fatal(err)
		}
		return len(res[0].Data) > 0
	})
	want := "[[127.0.0.1 10.9.0.1 22 ssh] [1500 3]]"
	if len(res[0].Data) != 1 || fmt.Sprint(res[0].Data[0]) != want {
		t.Fatalf("query answered %v, want %s", res[0].Data, want)
	}
	resp, err := http.Get(p.metrics)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `collector_flows_total{exporter="127.0.0.1",protocol="netflow"} 1`) {
		t.Errorf("/metrics lacks the exporter's flow:\n%s", body)
	}
	var st struct {
		Listen    []struct{ Protocol, Address string }
		Exporters []struct {
			Address   string
			Protocols []string
			Flows     int
		}
	}
	if err := c.Call(ctx, "collector-status", nil, &st); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(st), fmt.Sprintf("{[{netflow %s} {sflow %s}] [{127.0.0.1 [netflow-v5] 1}]}", p.flows["netflow"], p.flows["sflow"]); got != want {
		t.Errorf("collector-status answered %s, want %s", got, want)
	}
	p.stop(t)
}
