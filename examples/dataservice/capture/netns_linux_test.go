package capture_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// retransSegs reads the TCP segments network namespace ns retransmitted (RetransSegs of
// /proc/net/snmp, as the kernel counts them).
func retransSegs(t *testing.T, ns string) uint64 {
	t.Helper()
	b, err := exec.Command("ip", "netns", "exec", ns, "cat", "/proc/net/snmp").Output()
	if err != nil {
		t.Fatalf("ip netns exec %s cat /proc/net/snmp: %v", ns, err)
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "Tcp:" {
			continue
		}
		if names == nil {
			names = f
			continue
		}
		for i, n := range names {
			if n == "RetransSegs" && i < len(f) {
				v, err := strconv.ParseUint(f[i], 10, 64)
				if err != nil {
					t.Fatalf("RetransSegs %q: %v", f[i], err)
				}
				return v
			}
		}
	}
	t.Fatalf("no RetransSegs in the /proc/net/snmp of %s:\n%s", ns, b)
	return 0
}

// needNetns skips (fails under CI=true) unless the test can make network namespaces.
func needNetns(t *testing.T) {
	t.Helper()
	why := ""
	if os.Geteuid() != 0 {
		why = "not root"
	} else if _, err := exec.LookPath("ip"); err != nil {
		why = "no ip command (apt-get install iproute2)"
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("network namespaces: %s", why)
	}
	t.Skipf("network namespaces: %s", why)
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if b, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, b)
	}
}

// inNetns runs fn on a thread moved into network namespace ns; sockets it makes stay there.
// The thread is never given back (it ends with its goroutine).
func inNetns(t *testing.T, ns string, fn func() error) {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		f, err := os.Open("/run/netns/" + ns)
		if err != nil {
			errc <- err
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("setns %s: %w", ns, err)
			return
		}
		errc <- fn()
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}
