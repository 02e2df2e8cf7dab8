package load

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

//go:embed wrk.lua
var wrkScript []byte

// WrkConfig describes an HTTP load run with wrk.
type WrkConfig struct {
	// URL is the request URL (https://...). wrk does not verify the certificate.
	URL string
	// Threads and Connections are wrk's -t and -c: the connections are shared among the
	// threads and kept alive for the whole run.
	Threads, Connections int
	// Duration is the length of the run, in whole seconds (at least one).
	Duration time.Duration
	// Body and ContentType make the request a POST; empty Body means GET.
	Body, ContentType string
}

// RunWrk runs wrk once. wrk must be on the PATH (Debian package wrk).
func RunWrk(ctx context.Context, cfg WrkConfig) (Result, error) {
	dir, err := os.MkdirTemp("", "fnapi-bench-wrk")
	if err != nil {
		return Result{}, fmt.Errorf("load: wrk: %w", err)
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "wrk.lua")
	if err := os.WriteFile(script, wrkScript, 0o600); err != nil {
		return Result{}, fmt.Errorf("load: wrk: %w", err)
	}
	secs := max(int(cfg.Duration.Round(time.Second)/time.Second), 1)
	args := []string{
		"-t", strconv.Itoa(max(cfg.Threads, 1)),
		"-c", strconv.Itoa(max(cfg.Connections, 1)),
		"-d", strconv.Itoa(secs) + "s",
		"--timeout", "10s",
		"-s", script, cfg.URL,
	}
	if cfg.Body != "" {
		args = append(args, "--", cfg.Body, cfg.ContentType)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "wrk", args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return Result{}, fmt.Errorf("load: wrk: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	r, err := parseWrk(stdout.Bytes())
	if err != nil {
		return Result{}, fmt.Errorf("load: wrk: %w", err)
	}
	r.LoadCPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return r, nil
}

// parseWrk reads the WRKRESULT line that wrk.lua's done() prints.
func parseWrk(out []byte) (Result, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "WRKRESULT ")
		if !ok {
			continue
		}
		v := map[string]int64{}
		for _, f := range strings.Fields(line) {
			k, s, ok := strings.Cut(f, "=")
			if !ok {
				return Result{}, fmt.Errorf("malformed field %q", f)
			}
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 0 {
				return Result{}, fmt.Errorf("malformed field %q", f)
			}
			v[k] = n
		}
		for _, k := range []string{"requests", "duration_us", "errors", "p50_us", "p99_us"} {
			if _, ok := v[k]; !ok {
				return Result{}, fmt.Errorf("result line lacks %s", k)
			}
		}
		return Result{
			Calls:   v["requests"],
			Errors:  v["errors"],
			Elapsed: time.Duration(v["duration_us"]) * time.Microsecond,
			P50:     time.Duration(v["p50_us"]) * time.Microsecond,
			P99:     time.Duration(v["p99_us"]) * time.Microsecond,
		}, nil
	}
	return Result{}, fmt.Errorf("no WRKRESULT line in wrk's output: %q", out)
}
