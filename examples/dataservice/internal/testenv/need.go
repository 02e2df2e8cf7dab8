package testenv

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// CI reports whether the tests run under CI (the environment variable CI is "true"), where
// every tool .ci/run installs must be present.
func CI() bool { return os.Getenv("CI") == "true" }

// Need returns the path of the named binary. When it is missing the test fails under CI and
// skips otherwise; pkg names the Debian package that provides it.
func Need(t testing.TB, binary, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(binary)
	if err == nil {
		return path
	}
	for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
		if p := dir + "/" + binary; isExecutable(p) {
			return p
		}
	}
	if CI() {
		t.Fatalf("%s not found: .ci/run installs it (apt-get install %s)", binary, pkg)
	}
	t.Skipf("%s not found; apt-get install %s to run this test", binary, pkg)
	return ""
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago, for a server the test
// starts on it (see freePort).
func FreePort(t testing.TB) int {
	t.Helper()
	return freePort(t, "tcp")
}

// FreeUDPPort returns a UDP port on 127.0.0.1 that was free a moment ago (see freePort).
func FreeUDPPort(t testing.TB) int {
	t.Helper()
	return freePort(t, "udp")
}

// freePort returns a port of network ("tcp" or "udp") picked at random below the kernel's
// ephemeral range and found free. A port the kernel picks lies in the range every outgoing
// connection draws its local port from: between its release here and the bind of the server
// it is for, another test's connection could take it (a clickhouse-server of a busy run failed
// "Address already in use"). Without a range below the ephemeral one, the kernel picks.
func freePort(t testing.TB, network string) int {
	t.Helper()
	const lowest = 10000
	for i := 0; i < 100 && ephemeralLow() > lowest; i++ {
		port := lowest + rand.IntN(ephemeralLow()-lowest)
		if _, err := bind(network, port); err == nil {
			return port
		}
	}
	port, err := bind(network, 0)
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// ephemeralLow is the lowest port of the kernel's ephemeral range (32768 where it cannot be
// read).
var ephemeralLow = sync.OnceValue(func() int {
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if f := strings.Fields(string(raw)); err == nil && len(f) == 2 {
		if n, err := strconv.Atoi(f[0]); err == nil {
			return n
		}
	}
	return 32768
})

// bind listens on 127.0.0.1:port of network (port 0: one the kernel picks), closes at once,
// and returns the port it had.
func bind(network string, port int) (int, error) {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if network == "udp" {
		c, err := net.ListenPacket("udp", addr)
		if err != nil {
			return 0, err
		}
		defer c.Close()
		return c.LocalAddr().(*net.UDPAddr).Port, nil
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// logged is err with the log file at path, read when the error is shown: the log of a server
// that did not start.
type logged struct {
	err  error
	path string
}

func (e logged) Error() string {
	b, _ := os.ReadFile(e.path)
	return fmt.Sprintf("%v; its log:\n%s", e.err, b)
}
