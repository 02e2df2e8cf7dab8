package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/fnapi/fnapi/internal/testutil"
)

// HAProxy is an haproxy a test started in the foreground (haproxy -f cfg -db).
type HAProxy struct {
	cmd *exec.Cmd
	log string
}

// StartHAProxy runs haproxy with the configuration file cfg and the environment variables env
// (on top of the test's), waits until it accepts connections on listen, and stops it by its
// process ID when the test ends. Its output goes to a file in t.TempDir, shown when it fails.
func StartHAProxy(t testing.TB, cfg string, env map[string]string, listen string) *HAProxy {
	t.Helper()
	bin := Need(t, "haproxy", "haproxy")
	h := &HAProxy{log: filepath.Join(t.TempDir(), "haproxy.log")}
	out, err := os.Create(h.log)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	h.cmd = exec.Command(bin, "-f", cfg, "-db")
	h.cmd.Env = os.Environ()
	for k, v := range env {
		h.cmd.Env = append(h.cmd.Env, k+"="+v)
	}
	h.cmd.Stdout, h.cmd.Stderr = out, out
	h.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := h.cmd.Start(); err != nil {
		t.Fatalf("testenv: starting haproxy: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = h.cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = h.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = h.cmd.Process.Kill()
			<-exited
		}
	})
	testutil.Until(t, 10*time.Second, "haproxy to listen on "+listen, func() error {
		select {
		case <-exited:
			t.Fatalf("testenv: haproxy exited:\n%s", h.Log())
		default:
		}
		c, err := net.Dial("tcp", listen)
		if err != nil {
			return fmt.Errorf("%w; its log:\n%s", err, h.Log())
		}
		c.Close()
		return nil
	})
	return h
}

// Log returns what haproxy wrote so far.
func (h *HAProxy) Log() string {
	b, _ := os.ReadFile(h.log)
	return string(b)
}
