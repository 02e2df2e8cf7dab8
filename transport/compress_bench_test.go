package transport

import (
	"fmt"
	"net/http/httptest"
	"testing"
)

// queryAnswer is shaped like a large query answer: 2,000 groups of a time, two keys and three
// metrics.
func queryAnswer() any {
	rows := make([]map[string]any, 2000)
	for i := range rows {
		rows[i] = map[string]any{"time": 1700000000 + 60*(i/20), "client.ip": fmt.Sprintf("10.0.%d.%d", i/250, i%250),
			"application": []string{"https", "dns", "ssh", "quic"}[i%4], "bytes": 1000 + i*37, "packets": 10 + i%97, "flows": 1 + i%13}
	}
	return map[string]any{"columns": []string{"time", "client.ip", "application", "bytes", "packets", "flows"}, "rows": rows}
}

// BenchmarkCompress writes a large query answer and an echo answer plainly and gzipped,
// reporting the bytes sent per call.
func BenchmarkCompress(b *testing.B) {
	answers := []struct {
		name string
		v    any
	}{{"query", queryAnswer()}, {"echo", map[string]any{"x": 1, "text": "hello"}}}
	for _, a := range answers {
		for _, min := range []int{0, 1} {
			name := a.name + "/plain"
			if min > 0 {
				name = a.name + "/gzip"
			}
			b.Run(name, func(b *testing.B) {
				var n int
				for b.Loop() {
					w := httptest.NewRecorder()
					if err := writeResult(w, a.v, min); err != nil {
						b.Fatal(err)
					}
					n = w.Body.Len()
				}
				b.ReportMetric(float64(n), "bytes/call")
			})
		}
	}
}
