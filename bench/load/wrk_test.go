package load

import (
	"testing"
	"time"
)

func TestParseWrk(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want Result
		ok   bool
	}{
		{"result", "Running 1s test @ https://127.0.0.1:1/\n  1 threads\n" +
			"WRKRESULT requests=2000 duration_us=1000000 errors=3 p50_us=900 p99_us=4100\n",
			Result{Calls: 2000, Errors: 3, Elapsed: time.Second, P50: 900 * time.Microsecond, P99: 4100 * time.Microsecond}, true},
		{"no line", "Running 1s test\n", Result{}, false},
		{"missing field", "WRKRESULT requests=1 duration_us=1\n", Result{}, false},
		{"negative", "WRKRESULT requests=-1 duration_us=1 errors=0 p50_us=1 p99_us=1\n", Result{}, false},
		{"malformed", "WRKRESULT requests duration_us=1\n", Result{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseWrk([]byte(tt.out))
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("parseWrk = %+v, %v; want %+v, ok=%v", got, err, tt.want, tt.ok)
			}
		})
	}
}

func FuzzParseWrk(f *testing.F) {
	f.Add([]byte("WRKRESULT requests=2000 duration_us=1000000 errors=3 p50_us=900 p99_us=4100\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		r, err := parseWrk(out)
		if err == nil && (r.Calls < 0 || r.Errors < 0 || r.Elapsed < 0) {
			t.Errorf("parseWrk(%q) = %+v", out, r)
		}
	})
}

func TestPercentile(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	tests := []struct {
		p    float64
		want time.Duration
	}{{50, 5}, {99, 10}, {100, 10}, {1, 1}}
	for _, tt := range tests {
		if got := percentile(ds, tt.p); got != tt.want {
			t.Errorf("percentile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("percentile(nil) = %v", got)
	}
}
