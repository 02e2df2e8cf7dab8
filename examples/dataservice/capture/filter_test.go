package capture_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
)

// needTcpdump skips (fails under CI=true) without tcpdump, which compiles filters.
func needTcpdump(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tcpdump"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tcpdump is missing")
		}
		t.Skip("tcpdump is missing (apt-get install tcpdump)")
	}
}

func TestFilterOnFile(t *testing.T) {
	t.Parallel()
	needTcpdump(t)
	file := scapyPcap(t, "handshakeAndGet")
	for _, c := range []struct {
		expr    string
		packets uint64
	}{{"tcp port 80", 11}, {"tcp[tcpflags] & tcp-syn != 0", 2}, {"udp", 0}} {
		f, err := capture.CompileFilter(context.Background(), c.expr, capture.LinkEthernet)
		if err != nil {
			t.Fatal(err)
		}
		src, err := capture.OpenFile(file)
		if err != nil {
			t.Fatal(err)
		}
		tbl := capture.NewTable(capture.Config{}, func(capture.Record) {})
		p := &capture.Probe{Source: src, Table: tbl, Filter: f}
		if err := p.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		src.Close()
		if got := tbl.Stats().Packets; got != c.packets || p.Stats.Filtered != 11-c.packets {
			t.Errorf("%q: %d packets tracked, %d filtered; want %d", c.expr, got, p.Stats.Filtered, c.packets)
		}
	}
	if _, err := capture.CompileFilter(context.Background(), "tcp port", capture.LinkEthernet); err == nil {
		t.Error("a bad expression compiled")
	}
}

func TestParseFilter(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "x", "2\n6 0 0 1\n", "1\n6 0 0\n", "1\n6 0 999 0\n", "1\n65535 0 0 0\n"} {
		if _, err := capture.ParseFilter(bad); err == nil {
			t.Errorf("ParseFilter(%q) accepted", bad)
		}
	}
	f, err := capture.ParseFilter("1\n6 0 0 262144\n") // ret #262144: keep everything
	if err != nil || !f.Match([]byte{1}) {
		t.Fatalf("accept-all program: %v", err)
	}
}
