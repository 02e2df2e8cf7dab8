package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Softflowd replays the capture at pcap to a NetFlow collector at addr ("127.0.0.1:port") with
// Debian's softflowd, exporting NetFlow version 5, 9 or 10 (IPFIX), and returns when softflowd
// has sent every flow and exited.
func Softflowd(t testing.TB, pcap, addr string, version int) {
	t.Helper()
	bin := Need(t, "softflowd", "softflowd")
	pid := filepath.Join(t.TempDir(), "softflowd.pid")
	if out, err := run(bin, "-r", pcap, "-n", addr, "-v", fmt.Sprint(version), "-p", pid); err != nil {
		t.Fatalf("softflowd: %v\n%s", err, out)
	}
}

// Pmacctd replays the capture at pcap to an sFlow collector at addr with Debian's pmacctd and
// its sfprobe plugin (sampling every packet), a real sFlow v5 agent, and returns when pmacctd
// has read the whole capture and exited.
func Pmacctd(t testing.TB, pcap, addr string) {
	t.Helper()
	bin := Need(t, "pmacctd", "pmacct")
	dir := t.TempDir()
	conf := filepath.Join(dir, "pmacctd.conf")
	body := fmt.Sprintf("daemonize: false\npcap_savefile: %s\nplugins: sfprobe\n"+
		"sfprobe_receiver: %s\nsfprobe_agentip: 127.0.0.1\nsampling_rate: 1\npidfile: %s\n",
		pcap, addr, filepath.Join(dir, "pmacctd.pid"))
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	// pmacctd sometimes exits with status 1 after a complete run, when its core notices the
	// plugin's end before its own: the end of the capture is what tells success.
	if out, err := run(bin, "-f", conf); err != nil && !strings.Contains(string(out), "no more plugins active") {
		t.Fatalf("pmacctd: %v\n%s", err, out)
	}
}

// run runs a tool to its end (at most a minute) and returns its output.
func run(bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return exec.CommandContext(ctx, bin, args...).CombinedOutput()
}
