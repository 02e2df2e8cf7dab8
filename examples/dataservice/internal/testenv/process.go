package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/internal/testutil"
)

// process is a server a test runs from its binary, its output in log, stopped by its PID. The
// server types embed one.
type process struct {
	t      testing.TB
	binary string
	log    *os.File
	cmd    *exec.Cmd
}

// run starts the binary with args; the server must not be running.
func (p *process) run(args ...string) {
	p.t.Helper()
	if p.cmd != nil {
		p.t.Fatalf("testenv: %s already running", filepath.Base(p.binary))
	}
	cmd := exec.Command(p.binary, args...)
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	p.cmd = cmd
}

// waitOK waits until url answers 200, at most 30 s; a failure shows the server's log.
func (p *process) waitOK(url, what string) {
	p.t.Helper()
	testutil.Until(p.t, 30*time.Second, what, func() error {
		resp, err := http.Get(url)
		if err != nil {
			return logged{err, p.log.Name()}
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return logged{errors.New(resp.Status), p.log.Name()}
		}
		return nil
	})
}

// stop kills the server (SIGKILL: what it acknowledged must survive) and waits for it to exit;
// stopping a stopped server does nothing.
func (p *process) stop() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	p.cmd = nil
}

// CPUTime returns the CPU time (user and system, every thread's) the running server has used
// so far, from /proc (Linux; 0 elsewhere or when it is not running), at the kernel's clock
// tick (10 ms): benchmarks report a server's CPU per unit of work beside their own.
func (p *process) CPUTime() time.Duration {
	if p.cmd == nil {
		return 0
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The fields after the command's name, which is in parentheses and may hold spaces:
	// state is the first, utime the 12th and stime the 13th.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * (time.Second / clockTicks)
}

// clockTicks is the kernel's USER_HZ, the unit of /proc's CPU times: 100 on every Linux
// architecture Go supports.
const clockTicks = 100
