package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fnapi/fnapi/bench/targets"
)

// child is a server process started by the harness.
type child struct {
	server targets.Server
	addr   string // host:port it listens on
	cmd    *exec.Cmd
	stdin  io.WriteCloser
}

// startChild re-executes this program as the server s: it listens on a free loopback port,
// prints "ADDR host:port", and serves until its standard input closes.
// With profileDir set, the child writes its profiles there (see serveChild).
func startChild(ctx context.Context, s targets.Server, certFile, keyFile, profileDir string) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	args := []string{"-serve", string(s), "-cert", certFile, "-key", keyFile}
	if profileDir != "" {
		args = append(args, "-cpuprofile", filepath.Join(profileDir, strings.ReplaceAll(string(s), "/", "-")+".cpu.pprof"))
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("compare: start %s: %w", s, err)
	}
	c := &child{server: s, cmd: cmd, stdin: stdin}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "ADDR ")
	if err != nil || !ok {
		c.stop()
		return nil, fmt.Errorf("compare: %s did not report its address: %q %v", s, line, err)
	}
	c.addr = addr
	return c, nil
}

// stop closes the child's standard input, which ends it, and waits for it.
func (c *child) stop() {
	_ = c.stdin.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// cpu returns the CPU time (user and system) the child has used so far.
func (c *child) cpu() (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("compare: %w", err)
	}
	d, err := parseStatCPU(b)
	if err != nil {
		return 0, fmt.Errorf("compare: %s: %w", c.server, err)
	}
	return d, nil
}

// clockTick is USER_HZ, the unit of the times in /proc/<pid>/stat: 100 on every Linux
// architecture.
const clockTick = 10 * time.Millisecond

// parseStatCPU returns utime+stime from the content of /proc/<pid>/stat. The fields are counted
// after the command name, which is in parentheses and may itself hold spaces and parentheses.
// maxCPU is the most CPU time parseStatCPU accepts: more is no process's, and would overflow a
// Duration.
const maxCPU = time.Duration(1<<63 - 1)

func parseStatCPU(stat []byte) (time.Duration, error) {
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed stat %q", s)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("malformed stat %q", s)
	}
	var total time.Duration
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > int64(maxCPU/clockTick) || total > maxCPU-time.Duration(n)*clockTick {
			return 0, fmt.Errorf("malformed stat %q", s)
		}
		total += time.Duration(n) * clockTick
	}
	return total, nil
}

// serveChild is the child's side of startChild. With cpuProfile set, it profiles its CPU into
// that file, and its mutex contention and blocking into the same name with .mutex.pprof and
// .block.pprof instead of .cpu.pprof; profiling adds its own cost, so measure without it.
func serveChild(s targets.Server, certFile, keyFile, cpuProfile string) (err error) {
	if cpuProfile != "" {
		stop, err := startProfiles(cpuProfile)
		if err != nil {
			return err
		}
		defer func() {
			if perr := stop(); err == nil {
				err = perr
			}
		}()
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin) // returns when the parent closes it or dies
		cancel()
	}()
	fmt.Printf("ADDR %s\n", ln.Addr())
	return targets.Serve(ctx, s, ln, cert)
}
