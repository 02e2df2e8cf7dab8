package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/internal/testutil"
)

// Bird is Debian's bird2, started by a test as a router that connects to a BGP speaker from
// Local (an address of 127.0.0.0/8) and exports the static routes of its configuration; birdc
// reads its state.
type Bird struct {
	Local string
	sock  string
	birdc string
	t     testing.TB
	p     *process
}

// StartBird starts bird (stopped at the end of the test; its log shown when the test failed)
// with the AS as, connecting from local to the speaker at 127.0.0.1:port of AS peerAS, and
// exporting the routes of statics: lines of bird's static protocol, e.g.
// `route 198.51.100.0/24 blackhole { bgp_path.prepend(64999); bgp_community.add((64511,7)); };`
// for IPv4 (a route of an IPv6 prefix goes to the IPv6 channel). Without bird the test skips,
// or fails under CI.
func StartBird(t testing.TB, local string, as uint32, port int, peerAS uint32, statics []string) *Bird {
	t.Helper()
	bin := Need(t, "bird", "bird2")
	birdc := Need(t, "birdc", "bird2")
	dir := t.TempDir()
	b := &Bird{Local: local, sock: filepath.Join(dir, "bird.ctl"), birdc: birdc, t: t}
	var v4, v6 strings.Builder
	for _, s := range statics {
		if strings.Contains(strings.Fields(s)[1], ":") {
			fmt.Fprintln(&v6, "  "+s)
		} else {
			fmt.Fprintln(&v4, "  "+s)
		}
	}
	conf := fmt.Sprintf(`router id %s;
log "%s" all;
protocol device {}
protocol static s4 { ipv4; %s}
protocol static s6 { ipv6; %s}
protocol bgp speaker {
  local %s as %d;
  neighbor 127.0.0.1 port %d as %d;
  multihop;
  connect retry time 1;
  hold time 9;
  ipv4 { import none; export all; };
  ipv6 { import none; export all; next hop address 2001:db8::3; };
}
`, local, filepath.Join(dir, "bird.log"), v4.String(), v6.String(), local, as, port, peerAS)
	path := filepath.Join(dir, "bird.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "bird.out"))
	if err != nil {
		t.Fatal(err)
	}
	b.p = &process{t: t, binary: bin, log: log}
	b.p.run("-f", "-c", path, "-s", b.sock, "-P", filepath.Join(dir, "bird.pid"))
	t.Cleanup(b.p.stop)
	t.Cleanup(func() {
		if t.Failed() {
			o, _ := os.ReadFile(log.Name())
			l, _ := os.ReadFile(filepath.Join(dir, "bird.log"))
			t.Logf("bird output:\n%s\nbird log:\n%s", o, l)
		}
	})
	testutil.Until(t, 30*time.Second, "bird to answer", func() error {
		_, err := b.run("show", "status")
		return err
	})
	return b
}

func (b *Bird) run(args ...string) (string, error) {
	out, err := exec.Command(b.birdc, append([]string{"-s", b.sock}, args...)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("birdc %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// CLI runs birdc with args and returns its output; a failure fails the test.
func (b *Bird) CLI(args ...string) string {
	b.t.Helper()
	out, err := b.run(args...)
	if err != nil {
		b.t.Fatal(err)
	}
	return out
}

// Stop kills bird, ending its session without a NOTIFICATION.
func (b *Bird) Stop() { b.p.stop() }
