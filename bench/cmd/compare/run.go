package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/fnapi/fnapi/bench/load"
	"github.com/fnapi/fnapi/bench/targets"
)

// config is what the flags set.
type config struct {
	rounds           int
	duration, warmup time.Duration
	threads, conns   int
	inFlight         int
	only             *regexp.Regexp
	profileDir       string // where the servers write their profiles, if set
}

// sample is one round of one target.
type sample struct {
	load.Result
	cpu time.Duration // the server process's CPU time during the round
}

// measured is a target and its rounds.
type measured struct {
	target  targets.Target
	samples []sample
}

// results is the whole run.
type results struct {
	cfg      config
	started  time.Time
	loadAvg  string // /proc/loadavg before the run
	cpuModel string
	targets  []measured
}

// run starts the servers, checks that each target answers correctly, warms each up, then runs
// the rounds.
func run(ctx context.Context, cfg config) (*results, error) {
	var ts []targets.Target
	needWrk := false
	for _, t := range targets.All() {
		if cfg.only == nil || cfg.only.MatchString(t.Name) {
			ts = append(ts, t)
			needWrk = needWrk || t.Kind != targets.WS
		}
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("compare: no target matches")
	}
	if _, err := exec.LookPath("wrk"); needWrk && err != nil {
		return nil, fmt.Errorf("compare: wrk is needed for the HTTP targets (apt-get install wrk): %w", err)
	}
	res := &results{cfg: cfg, started: time.Now(), loadAvg: loadAvg(), cpuModel: cpuModel()}

	dir, err := os.MkdirTemp("", "fnapi-bench")
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	defer os.RemoveAll(dir)
	certPEM, keyPEM, err := targets.SelfSigned()
	if err != nil {
		return nil, err
	}
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	client := &http.Client{
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		Timeout:   30 * time.Second,
	}
	defer client.CloseIdleConnections()

	children := map[targets.Server]*child{}
	defer func() {
		for _, c := range children {
			c.stop()
		}
	}()
	for _, t := range ts {
		if children[t.Server] == nil {
			c, err := startChild(ctx, t.Server, certFile, keyFile, cfg.profileDir)
			if err != nil {
				return nil, err
			}
			children[t.Server] = c
		}
	}

	for _, t := range ts {
		if err := t.Verify(ctx, client, children[t.Server].addr); err != nil {
			return nil, fmt.Errorf("compare: %w", err)
		}
	}
	for _, t := range ts {
		logf("warm-up %s", t.Name)
		if _, err := once(ctx, cfg, client, children[t.Server], t, cfg.warmup); err != nil {
			return nil, err
		}
	}
	for _, t := range ts {
		res.targets = append(res.targets, measured{target: t})
	}
	for r := range cfg.rounds {
		for i := range res.targets {
			m := &res.targets[i]
			s, err := once(ctx, cfg, client, children[m.target.Server], m.target, cfg.duration)
			if err != nil {
				return nil, err
			}
			m.samples = append(m.samples, s)
			logf("round %d/%d %-14s %9.0f calls/s  p50 %-9v p99 %-9v CPU/call %-9v (%.2f cores) load CPU/call %-9v errors %d",
				r+1, cfg.rounds, m.target.Name, s.CallsPerSecond(), s.P50, s.P99, s.cpuPerCall(), s.cores(),
				s.loadCPUPerCall(), s.Errors)
		}
	}
	return res, nil
}

// once runs the load of one target for d and measures the server's CPU time meanwhile.
func once(ctx context.Context, cfg config, client *http.Client, c *child, t targets.Target, d time.Duration) (sample, error) {
	cpu0, err := c.cpu()
	if err != nil {
		return sample{}, err
	}
	var r load.Result
	if t.Kind == targets.WS {
		r, err = load.RunWS(ctx, load.WSConfig{URL: "wss://" + c.addr + t.Path, HTTPClient: client,
			InFlight: cfg.inFlight, Duration: d, AppendMessage: t.AppendMessage})
	} else {
		r, err = load.RunWrk(ctx, load.WrkConfig{URL: "https://" + c.addr + t.Path,
			Threads: cfg.threads, Connections: cfg.conns, Duration: d, Body: t.Body, ContentType: t.ContentType})
	}
	if err != nil {
		return sample{}, fmt.Errorf("compare: %s: %w", t.Name, err)
	}
	cpu1, err := c.cpu()
	if err != nil {
		return sample{}, err
	}
	return sample{Result: r, cpu: cpu1 - cpu0}, nil
}

func (s sample) cpuPerCall() time.Duration {
	if s.Calls == 0 {
		return 0
	}
	return s.cpu / time.Duration(s.Calls)
}

func (s sample) loadCPUPerCall() time.Duration {
	if s.Calls == 0 {
		return 0
	}
	return s.LoadCPU / time.Duration(s.Calls)
}

func (s sample) cores() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return s.cpu.Seconds() / s.Elapsed.Seconds()
}

// median returns the median of the values f takes over the samples.
func median[T int64 | float64 | time.Duration](ss []sample, f func(sample) T) T {
	vs := make([]T, len(ss))
	for i, s := range ss {
		vs[i] = f(s)
	}
	return medianOf(vs)
}

// medianOf returns the median of vs, sorting vs; 0 if vs is empty.
func medianOf[T int64 | float64 | time.Duration](vs []T) T {
	slices.Sort(vs)
	if len(vs) == 0 {
		return 0
	}
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return fmt.Sprintf("%s, %d CPUs", strings.TrimSpace(v), runtime.NumCPU())
			}
		}
	}
	return fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
}
