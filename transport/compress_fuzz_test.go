package transport

import (
	"net/http"
	"strings"
	"testing"
)

// FuzzAcceptsGzip: any Accept-Encoding is read without a panic, and gzip is never chosen for one
// that names neither gzip nor "*".
func FuzzAcceptsGzip(f *testing.F) {
	for _, s := range []string{"gzip", "br;q=1.0, gzip;q=0.8", "*", "gzip;q=0", "identity", "GZIP ; q=0.5", ";;,,q="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		r := &http.Request{Header: http.Header{"Accept-Encoding": {v}}}
		got := acceptsGzip(r)
		if l := strings.ToLower(v); got && !strings.Contains(l, "gzip") && !strings.Contains(l, "*") {
			t.Errorf("acceptsGzip(%q) = true", v)
		}
	})
}
