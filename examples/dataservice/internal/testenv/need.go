package testenv

import (
	"net"
	"os"
	"os/exec"
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

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// FreeUDPPort returns a UDP port on 127.0.0.1 that was free a moment ago.
func FreeUDPPort(t testing.TB) int {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}
