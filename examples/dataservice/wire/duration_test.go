package wire_test

import (
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/wire"
)

func TestParseDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"90s", 90 * time.Second, true},
		{"2h", 2 * time.Hour, true},
		{"15m", 15 * time.Minute, true},
		{"30d", 30 * 24 * time.Hour, true},
		{"2w", 14 * 24 * time.Hour, true},
		{"0s", 0, true},
		{"15250w", 15250 * wire.Week, true},
		{"15251w", 0, false},
		{"999999999w", 0, false},
		{"999999999s", 999999999 * time.Second, true},
		{"", 0, false},
		{"h", 0, false},
		{"10", 0, false},
		{"1.5h", 0, false},
		{"-1h", 0, false},
		{"+1h", 0, false},
		{" 1h", 0, false},
		{"1h30m", 0, false},
		{"1H", 0, false},
		{"1y", 0, false},
		{"1ms", 0, false},
		{"1000000000s", 0, false},
		{"１h", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := wire.ParseDuration(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Fatalf("ParseDuration(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
}

func TestFormatDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   time.Duration
		want string
	}{
		{90 * time.Second, "90s"},
		{time.Hour, "1h"},
		{90 * time.Minute, "90m"},
		{48 * time.Hour, "2d"},
		{14 * 24 * time.Hour, "2w"},
		{1500 * time.Millisecond, "1s"},
		{0, "0s"},
		{-time.Hour, "0s"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := wire.FormatDuration(tt.in); got != tt.want {
				t.Fatalf("FormatDuration(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"90s", "2h", "30d", "1w", "", "1.5h", "999999999w", "-1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := wire.ParseDuration(s)
		if err != nil {
			return
		}
		if d < 0 {
			t.Fatalf("ParseDuration(%q) = %v: negative", s, d)
		}
		back, err := wire.ParseDuration(wire.FormatDuration(d))
		if err != nil || back != d {
			t.Fatalf("ParseDuration(%q) = %v does not survive FormatDuration (%q): %v, %v", s, d, wire.FormatDuration(d), back, err)
		}
	})
}
