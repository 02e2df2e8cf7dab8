package main

import (
	"testing"
	"time"

	"github.com/fnapi/fnapi/bench/load"
)

func TestReplaceSection(t *testing.T) {
	const sec = beginMarker + "\nnew\n" + endMarker + "\n"
	tests := []struct {
		name, doc, want string
	}{
		{"no file", "", "# Benchmarks\n\n" + sec},
		{"appended", "# Benchmarks\n\nother", "# Benchmarks\n\nother\n\n" + sec},
		{"replaced", "# B\n\n" + beginMarker + "\nold\n" + endMarker + "\n\n## Next\n",
			"# B\n\n" + sec + "\n## Next\n"},
		{"end before begin", endMarker + "\n" + beginMarker + "\n",
			endMarker + "\n" + beginMarker + "\n\n" + sec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := replaceSection(tt.doc, sec); got != tt.want {
				t.Errorf("replaceSection(%q) = %q, want %q", tt.doc, got, tt.want)
			}
		})
	}
}

func TestParseStatCPU(t *testing.T) {
	tests := []struct {
		name, stat string
		want       time.Duration
		ok         bool
	}{
		{"plain", "42 (compare) S 1 42 42 0 -1 4194560 500 0 0 0 150 25 0 0 20 0 5 0 100 0 0\n",
			1750 * time.Millisecond, true},
		{"name with spaces and parentheses", "42 (a) b (c) S 1 42 42 0 -1 0 0 0 0 0 3 4 0 0\n",
			70 * time.Millisecond, true},
		{"short", "42 (x) S 1 2\n", 0, false},
		{"no name", "42 x S", 0, false},
		{"not a number", "42 (x) S 1 42 42 0 -1 0 0 0 0 0 a 4 0\n", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatCPU([]byte(tt.stat))
			if got != tt.want || (err == nil) != tt.ok {
				t.Errorf("parseStatCPU = %v, %v; want %v, ok=%v", got, err, tt.want, tt.ok)
			}
		})
	}
}

func FuzzParseStatCPU(f *testing.F) {
	f.Add([]byte("42 (compare) S 1 42 42 0 -1 4194560 500 0 0 0 150 25 0 0 20 0 5 0 100 0 0\n"))
	f.Fuzz(func(t *testing.T, stat []byte) {
		if d, err := parseStatCPU(stat); err == nil && d < 0 {
			t.Errorf("parseStatCPU(%q) = %v", stat, d)
		}
	})
}

func TestRoundRatio(t *testing.T) {
	rounds := func(cps ...int64) measured {
		m := measured{}
		for _, c := range cps {
			m.samples = append(m.samples, sample{Result: load.Result{Calls: c, Elapsed: time.Second}})
		}
		return m
	}
	// The machine is slow in the second round for both: the ratio within each round is 2.
	f, p := rounds(200, 20, 180), rounds(100, 10, 90)
	got := roundRatio(f, p, func(x sample) float64 { return x.CallsPerSecond() })
	if got != 2 {
		t.Errorf("roundRatio = %v, want 2", got)
	}
	if got := roundRatio(f, rounds(), func(x sample) float64 { return x.CallsPerSecond() }); got != 0 {
		t.Errorf("roundRatio with no peer rounds = %v, want 0", got)
	}
}
