// Command compare measures fnapi against its peers: the same echo call served by fnapi (HTTP
// GET, HTTP POST, WebSocket), a hand-written net/http handler, go-ethereum's rpc package (HTTP,
// WebSocket) and connect-go (HTTP, JSON codec), all over TLS on loopback.
//
// Run it from the repository root with:
//
//	go -C bench run ./cmd/compare -out ../BENCHMARKS.md
//
// Each server runs in its own child process (this program, re-executed with -serve), so that
// its CPU time is measured apart from the load generators' and from the other servers'. HTTP
// targets are driven by wrk (Debian package wrk) with a fixed number of connections, WebSocket
// targets by a Go client keeping a fixed number of calls in flight on one connection. Rounds
// alternate between the targets (A B C ... A B C ...); the report gives each target's median
// over the rounds of calls/s, p50 and p99 latency and server CPU per call, and the ratios
// fnapi/peer from the same run. With -out, the report replaces the text between the markers
// <!-- peers:begin --> and <!-- peers:end --> of that file, or is appended to it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"syscall"
	"time"

	"github.com/fnapi/fnapi/bench/targets"
)

func main() {
	var cfg config
	serve := flag.String("serve", "", "internal: serve this server as a child process")
	certFile := flag.String("cert", "", "internal: the child's certificate (PEM)")
	keyFile := flag.String("key", "", "internal: the child's private key (PEM)")
	cpuProfile := flag.String("cpuprofile", "", "internal: the child's CPU profile")
	flag.StringVar(&cfg.profileDir, "profile", "", "write each server's CPU, mutex and block profiles into this directory (slows the servers)")
	out := flag.String("out", "", "update the peers section of this Markdown file, e.g. ../BENCHMARKS.md")
	only := flag.String("targets", "", "run only the targets whose name matches this regular expression")
	flag.IntVar(&cfg.rounds, "rounds", 5, "rounds over all targets")
	flag.DurationVar(&cfg.duration, "duration", 4*time.Second, "length of one target's round (whole seconds)")
	flag.DurationVar(&cfg.warmup, "warmup", 2*time.Second, "warm-up of each target before the rounds")
	flag.IntVar(&cfg.threads, "threads", 1, "wrk threads")
	flag.IntVar(&cfg.conns, "conns", 32, "wrk connections")
	flag.IntVar(&cfg.inFlight, "inflight", 32, "WebSocket calls in flight on the one connection")
	flag.Parse()

	if *serve != "" {
		if err := serveChild(targets.Server(*serve), *certFile, *keyFile, *cpuProfile); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fmt.Fprintln(os.Stderr, "compare: -targets:", err)
			os.Exit(2)
		}
		cfg.only = re
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := compare(ctx, cfg, *out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// compare runs the comparison, prints the report and writes it into out if set.
func compare(ctx context.Context, cfg config, out string) error {
	res, err := run(ctx, cfg)
	if err != nil {
		return err
	}
	section := report(res)
	fmt.Print(section)
	if out == "" {
		return nil
	}
	return updateFile(out, section)
}
