package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// The markers around the section this command owns in BENCHMARKS.md.
const (
	beginMarker = "<!-- peers:begin -->"
	endMarker   = "<!-- peers:end -->"
)

// comparison is a ratio the report gives, with the goal issue 6 sets for it.
type comparison struct {
	fnapi, peer string
	goal        float64
}

var comparisons = []comparison{
	{"fnapi GET", "net/http GET", 0.8},
	{"fnapi POST", "net/http POST", 0.8},
	{"fnapi GET", "geth HTTP", 1.2},
	{"fnapi POST", "geth HTTP", 1.2},
	{"fnapi GET", "connect HTTP", 1.2},
	{"fnapi POST", "connect HTTP", 1.2},
	{"fnapi WS", "geth WS", 1.5},
	{"fnapi GET +log+metrics", "fnapi GET", 0},
}

// summary is a target's medians over its rounds.
type summary struct {
	name          string
	cps, min, max float64 // calls/s: median, lowest and highest round
	p50, p99, cpu time.Duration
	loadCPU       time.Duration // the load generator's CPU per call
	cores         float64       // the server's CPU time over the round's length
	errors        int64
}

func summarize(m measured) summary {
	s := summary{name: m.target.Name, min: -1}
	for _, x := range m.samples {
		c := x.CallsPerSecond()
		if s.min < 0 || c < s.min {
			s.min = c
		}
		s.max = max(s.max, c)
		s.errors += x.Errors
	}
	s.cps = median(m.samples, func(x sample) float64 { return x.CallsPerSecond() })
	s.p50 = median(m.samples, func(x sample) time.Duration { return x.P50 })
	s.p99 = median(m.samples, func(x sample) time.Duration { return x.P99 })
	s.cpu = median(m.samples, func(x sample) time.Duration { return x.cpuPerCall() })
	s.loadCPU = median(m.samples, func(x sample) time.Duration { return x.loadCPUPerCall() })
	s.cores = median(m.samples, func(x sample) float64 { return x.cores() })
	return s
}

// report renders the section, markers included.
func report(res *results) string {
	var b strings.Builder
	cfg := res.cfg
	sums := map[string]summary{}
	fmt.Fprintf(&b, "%s\n## fnapi against its peers\n\n", beginMarker)
	b.WriteString("The same `echo` call with the named arguments `{a: 1, b: \"x\"}` through fnapi and its\n" +
		"peers, over TLS on loopback (HTTP/1.1), each server in its own process. Regenerate with\n" +
		"`go -C bench run ./cmd/compare -out ../BENCHMARKS.md` (needs `wrk`; see bench/README.md).\n\n")
	fmt.Fprintf(&b, "Run of %s: %s, %s; load average before the run %s.\n",
		res.started.UTC().Format("2006-01-02 15:04 MST"), res.cpuModel, runtime.Version(), res.loadAvg)
	fmt.Fprintf(&b, "%d rounds of %v per target, alternating between targets, after a %v warm-up of each. "+
		"HTTP: `wrk -t%d -c%d`; WebSocket: one connection with %d calls in flight (Go client).\n\n",
		cfg.rounds, cfg.duration, cfg.warmup, cfg.threads, cfg.conns, cfg.inFlight)

	b.WriteString("| target | calls/s | range over rounds | p50 | p99 | server CPU per call | server cores busy | load generator CPU per call | errors |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range res.targets {
		s := summarize(m)
		sums[s.name] = s
		fmt.Fprintf(&b, "| %s | %.0f | %.0f–%.0f | %s | %s | %s | %.2f | %s | %d |\n",
			s.name, s.cps, s.min, s.max, ms(s.p50), ms(s.p99), us(s.cpu), s.cores, us(s.loadCPU), s.errors)
	}

	b.WriteString("\nRatios from this run, fnapi / peer, each the median over the rounds of the ratio within a " +
		"round (the two targets ran seconds apart). Calls/s: above 1 means fnapi serves more; " +
		"CPU per call: below 1 means fnapi spends less.\n\n")
	b.WriteString("| fnapi | peer | calls/s ratio | goal (issue 6) | met | CPU per call ratio |\n")
	b.WriteString("|---|---|---:|---:|---|---:|\n")
	byName := map[string]measured{}
	for _, m := range res.targets {
		byName[m.target.Name] = m
	}
	for _, c := range comparisons {
		f, okF := byName[c.fnapi]
		p, okP := byName[c.peer]
		if !okF || !okP {
			continue
		}
		r := roundRatio(f, p, func(x sample) float64 { return x.CallsPerSecond() })
		cpu := roundRatio(f, p, func(x sample) float64 { return float64(x.cpuPerCall()) })
		goal, met := "—", "—"
		if c.goal > 0 {
			goal, met = fmt.Sprintf("≥ %.1f", c.goal), "yes"
			if r < c.goal {
				met = "**no**"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %.2f | %s | %s | %.2f |\n", c.fnapi, c.peer, r, goal, met, cpu)
	}
	b.WriteString(`
How to read it:

- Each figure is the median over the rounds; "range over rounds" shows how much calls/s moved.
  Latencies are wrk's (HTTP) or the Go client's (WebSocket), from sending a call to reading its
  answer, with every connection kept busy, so they grow with the queue, not only with the work.
- Server CPU per call is the server process's user+system time during a round (from
  /proc/<pid>/stat, 10 ms ticks) divided by the calls it answered: TLS, HTTP, JSON and the
  framework, without the load generator. It is the steadier measure of cost; calls/s also
  depends on how the 2 cores are shared with wrk or the Go client. "Server cores busy" is the
  server's CPU time over the round's length (2 would be both cores); the load generator's CPU
  per call is wrk's process, or the whole harness process for the WebSocket client.
- What each target does is written in bench/targets/doc.go. go-ethereum's JSON-RPC has no
  named arguments: its call is echo_echo with params [1, "x"] and a typed method; connect-go
  uses structpb.Struct (no generated code) with its JSON codec.
- **Noise:** this machine has 2 cores and is often busy with other builds and tests while the
  harness runs; numbers from a busy machine are noisy (see the load average above and the
  range over rounds). Ratios from the same run are more telling than absolute figures; compare
  runs only on a quiet machine.
`)
	fmt.Fprintf(&b, "%s\n", endMarker)
	return b.String()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
func us(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond)) }

// replaceSection returns doc with the text from beginMarker to endMarker replaced by section,
// or with section appended when doc has no complete pair of markers.
func replaceSection(doc, section string) string {
	i := strings.Index(doc, beginMarker)
	j := strings.Index(doc, endMarker)
	if i >= 0 && j > i {
		rest := doc[j+len(endMarker):]
		rest = strings.TrimPrefix(rest, "\n")
		return doc[:i] + section + rest
	}
	if doc == "" {
		return "# Benchmarks\n\n" + section
	}
	if !strings.HasSuffix(doc, "\n") {
		doc += "\n"
	}
	return doc + "\n" + section
}

// updateFile writes section into the file at path (see replaceSection).
func updateFile(path, section string) error {
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("compare: %w", err)
	}
	if err := os.WriteFile(path, []byte(replaceSection(string(b), section)), 0o644); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	return nil
}

// roundRatio is the median over the rounds of f's value over p's in the same round, which
// cancels the slow changes of a shared machine's load better than a ratio of medians.
func roundRatio(f, p measured, v func(sample) float64) float64 {
	var rs []float64
	for i := range min(len(f.samples), len(p.samples)) {
		if d := v(p.samples[i]); d > 0 {
			rs = append(rs, v(f.samples[i])/d)
		}
	}
	return medianOf(rs)
}
