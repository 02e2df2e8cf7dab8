package testenv

import (
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
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
	return freePort(t, func(addr string) (io.Closer, error) { return net.Listen("tcp", addr) })
}

// FreeUDPPort returns a UDP port on 127.0.0.1 that was free a moment ago (see freePort).
func FreeUDPPort(t testing.TB) int {
	t.Helper()
	return freePort(t, func(addr string) (io.Closer, error) { return net.ListenPacket("udp", addr) })
}

// freePort picks a port at random below the kernel's ephemeral range and returns it once
// listen (on "127.0.0.1:PORT") found it free. A port the kernel picks lies in the range every
// outgoing connection draws its local port from: between its release here and the bind of the
// server it is for, another test's connection could take it (a clickhouse-server of a busy run
// failed "Address already in use"). Without a range to pick from, the kernel picks.
func freePort(t testing.TB, listen func(addr string) (io.Closer, error)) int {
	t.Helper()
	const lowest = 10000
	ephemeral := 32768
	if raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(raw)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				ephemeral = n
			}
		}
	}
	for range 100 {
		if ephemeral <= lowest {
			break
		}
		port := lowest + rand.IntN(ephemeral-lowest)
		if c, err := listen("127.0.0.1:" + strconv.Itoa(port)); err == nil {
			c.Close()
			return port
		}
	}
	c, err := listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	switch a := c.(type) {
	case net.Listener:
		return a.Addr().(*net.TCPAddr).Port
	case net.PacketConn:
		return a.LocalAddr().(*net.UDPAddr).Port
	}
	t.Fatalf("testenv: listening on %T", c)
	return 0
}
