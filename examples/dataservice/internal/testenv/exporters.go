package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	run(t, bin, "-r", pcap, "-n", addr, "-v", fmt.Sprint(version), "-p", pid)
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
	run(t, bin, "-f", conf)
}

// run runs a tool to its end (at most a minute), failing the test when it fails.
func run(t testing.TB, bin string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %q: %v\n%s", bin, args, err, out)
	}
}
