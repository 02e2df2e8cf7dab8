package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/internal/testutil"
)

// GoBGPD is Debian's gobgpd, started by a test as a router that connects to a BGP speaker:
// its session comes from Local (an address of 127.0.0.0/8), its routes are originated with
// Originate and what it received is read with RIB, through its gobgp CLI.
type GoBGPD struct {
	Local string
	AS    uint32
	api   int
	cli   string
	t     testing.TB
	p     *process
}

// Stop kills gobgpd (SIGKILL): its session ends without a NOTIFICATION.
func (g *GoBGPD) Stop() { g.p.stop() }

// StartGoBGPD starts gobgpd (stopped at the end of the test; its log shown when the test
// failed) with the AS as, connecting from local to the speaker at 127.0.0.1:port of AS peerAS
// with the unicast and flowspec families of IPv4 and IPv6. Without gobgpd the test skips, or
// fails under CI.
func StartGoBGPD(t testing.TB, local string, as uint32, port int, peerAS uint32) *GoBGPD {
	t.Helper()
	return startGoBGPD(t, local, as, port, peerAS, 0)
}

// StartGoBGPDGraceful is StartGoBGPD with graceful restart (RFC 4724) announced for the
// unicast families, restart time restart: killed (Stop), its routes should outlive its session.
func StartGoBGPDGraceful(t testing.TB, local string, as uint32, port int, peerAS uint32, restart time.Duration) *GoBGPD {
	t.Helper()
	return startGoBGPD(t, local, as, port, peerAS, restart)
}

func startGoBGPD(t testing.TB, local string, as uint32, port int, peerAS uint32, restart time.Duration) *GoBGPD {
	t.Helper()
	bin := Need(t, "gobgpd", "gobgpd")
	cli := Need(t, "gobgp", "gobgpd")
	dir := t.TempDir()
	g := &GoBGPD{Local: local, AS: as, api: FreePort(t), cli: cli, t: t}
	var fams strings.Builder
	if restart > 0 {
		fmt.Fprintf(&fams, "  [neighbors.graceful-restart.config]\n    enabled = true\n    restart-time = %d\n", int(restart/time.Second))
	}
	for _, f := range []string{"ipv4-unicast", "ipv6-unicast", "ipv4-flowspec", "ipv6-flowspec"} {
		fmt.Fprintf(&fams, "  [[neighbors.afi-safis]]\n    [neighbors.afi-safis.config]\n      afi-safi-name = %q\n", f)
		if restart > 0 && strings.HasSuffix(f, "unicast") {
			fmt.Fprintf(&fams, "    [neighbors.afi-safis.mp-graceful-restart.config]\n      enabled = true\n")
		}
	}
	conf := fmt.Sprintf(`[global.config]
  as = %d
  router-id = %q
  port = -1
[[neighbors]]
  [neighbors.config]
    neighbor-address = "127.0.0.1"
    peer-as = %d
  [neighbors.transport.config]
    remote-port = %d
    local-address = %q
  [neighbors.timers.config]
    connect-retry = 1
    hold-time = 9
    keepalive-interval = 3
%s`, as, local, peerAS, port, local, fams.String())
	path := filepath.Join(dir, "gobgpd.toml")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "gobgpd.log"))
	if err != nil {
		t.Fatal(err)
	}
	g.p = &process{t: t, binary: bin, log: log}
	g.p.run("-f", path, "-p", "--pprof-disable", "--api-hosts", "127.0.0.1:"+strconv.Itoa(g.api))
	t.Cleanup(g.p.stop)
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("gobgpd log:\n%s", b)
		}
	})
	testutil.Until(t, 30*time.Second, "gobgpd to answer", func() error {
		_, err := g.run("global")
		return err
	})
	return g
}

// run runs the gobgp CLI against this gobgpd with args and returns its output.
func (g *GoBGPD) run(args ...string) (string, error) {
	cmd := exec.Command(g.cli, append([]string{"-p", strconv.Itoa(g.api)}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("gobgp %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// CLI runs the gobgp CLI with args (e.g. "global", "rib", "add", ...) and returns its output;
// a failure fails the test.
func (g *GoBGPD) CLI(args ...string) string {
	g.t.Helper()
	out, err := g.run(args...)
	if err != nil {
		g.t.Fatal(err)
	}
	return out
}

// Query runs the gobgp CLI with args as CLI does, for a poll: its failure (the CLI timing out
// against a gobgpd busy on a loaded machine) is the poll's error, to be tried again.
func (g *GoBGPD) Query(args ...string) (string, error) { return g.run(args...) }

// Established reports whether gobgpd's session with the speaker is established.
func (g *GoBGPD) Established() error {
	out, err := g.run("neighbor")
	if err != nil {
		return err
	}
	if !strings.Contains(out, "Establ") {
		return fmt.Errorf("no established session: %s", out)
	}
	return nil
}
