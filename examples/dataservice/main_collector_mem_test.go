package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/internal/testutil"
)

// maxAttackGrowthMB bounds how much the collector's attack datagrams may raise the service's
// peak resident memory (VmHWM). Before the bounds on templates, the 3 KB data set alone raised
// it by 555 MB and the 60 KB one got the process killed.
const maxAttackGrowthMB = 100

// TestCollectorMemoryAttack runs the service with -netflow and sends it, over UDP, the template
// of issue 23 (4,095 zero-length fields and one 1-byte field) and data sets of 3 KB and 60 KB
// for it, then the worst template the bounds let through (options data of four 1-byte fields)
// and 60 KB data sets for it: the process's peak memory must grow by less than
// maxAttackGrowthMB, and the service must still answer, with the refused template counted in
// /metrics and collector-status.
func TestCollectorMemoryAttack(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	p := startService(t, "-addr", "127.0.0.1:0", "-data", data, "-netflow", "127.0.0.1:0", "-metrics", "127.0.0.1:0")
	conn, err := net.Dial("udp", p.flows["netflow"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	before := vmHWM(t, p.cmd.Process.Pid)

	v9 := func(sets ...[]byte) []byte {
		b := binary.BigEndian.AppendUint16(nil, 9)
		b = binary.BigEndian.AppendUint16(b, uint16(len(sets)))
		b = binary.BigEndian.AppendUint32(b, 60_000)
		b = binary.BigEndian.AppendUint32(b, uint32(time.Now().Unix()))
		b = binary.BigEndian.AppendUint32(b, 1)
		b = binary.BigEndian.AppendUint32(b, 0) // source ID
		for _, s := range sets {
			b = append(b, s...)
		}
		return b
	}
	set := func(id uint16, body []byte) []byte {
		b := binary.BigEndian.AppendUint16(nil, id)
		return append(binary.BigEndian.AppendUint16(b, uint16(4+len(body))), body...)
	}
	// Template 256: 4,095 zero-length fields and one 1-byte field.
	tpl := binary.BigEndian.AppendUint16(nil, 256)
	tpl = binary.BigEndian.AppendUint16(tpl, 4096)
	for i := range 4096 {
		tpl = binary.BigEndian.AppendUint16(tpl, 1)
		tpl = binary.BigEndian.AppendUint16(tpl, uint16(i/4095)) // the last one 1 byte
	}
	// Options template 300: a 1-byte scope and three 1-byte options, 4-byte records.
	opts := []byte{1, 44, 0, 4, 0, 12, 0, 1, 0, 1, 0, 34, 0, 1, 0, 34, 0, 1, 0, 34, 0, 1}
	send := func(d []byte) {
		t.Helper()
		if _, err := conn.Write(d); err != nil {
			t.Fatal(err)
		}
	}
	send(v9(set(0, tpl)))
	send(v9(set(256, make([]byte, 3000))))
	send(v9(set(256, make([]byte, 60_000))))
	send(v9(set(1, opts)))
	for range 10 {
		send(v9(set(300, make([]byte, 60_000))))
	}

	want := []string{
		`collector_datagrams_total{exporter="127.0.0.1",protocol="netflow"} 14`,
		`collector_templates_refused_total{exporter="127.0.0.1",protocol="netflow"} 1`,
		`collector_sets_without_template_total{exporter="127.0.0.1",protocol="netflow"} 2`,
		`collector_templates{exporter="127.0.0.1",protocol="netflow"} 1`,
	}
	var metrics string
	testutil.Until(t, 30*time.Second, "the collector's metrics", func() error {
		resp, err := http.Get(p.metrics)
		if err != nil {
			t.Fatalf("the service no longer answers: %v\n%s", err, p.log)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if metrics = string(body); !hasAll(metrics, want) {
			return errors.New("not all of them yet")
		}
		return nil
	})
	if !hasAll(metrics, want) {
		t.Fatalf("/metrics lacks %q:\n%s", want, metrics)
	}
	growth := vmHWM(t, p.cmd.Process.Pid) - before
	t.Logf("peak resident memory grew by %d MB", growth)
	if growth >= maxAttackGrowthMB {
		t.Errorf("peak resident memory grew by %d MB, want less than %d", growth, maxAttackGrowthMB)
	}

	ctx := context.Background()
	c := adminClient(t, p, data)
	st, err := client.Call(ctx, c, api.CollectorStatus, decl.None{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Exporters) != 1 || st.Exporters[0].TemplatesRefused != 1 || st.Exporters[0].SetsWithoutTemplate != 2 {
		t.Errorf("collector-status answered %+v, want one exporter with 1 template refused, 2 sets without template", st.Exporters)
	}
	p.stop(t)
}

func hasAll(s string, lines []string) bool {
	for _, l := range lines {
		if !strings.Contains(s, l+"\n") {
			return false
		}
	}
	return true
}

// vmHWM returns the peak resident memory of process pid, in MB, from /proc.
func vmHWM(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatal(err)
			}
			return kb / 1024
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}
