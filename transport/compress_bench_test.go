package transport

import (
	"bytes"
	"fmt"
	"io"
	"net/http/httptest"
	"testing"
)

// queryAnswer is shaped like the data service's answer to a large query (api.Result): 2,000
// groups, each [[time, client.ip, application], [bytes, packets, flows]], and its meta.
func queryAnswer() map[string]any {
	data := make([]any, 2000)
	for i := range data {
		keys := []any{1700000000 + 60*(i/20), fmt.Sprintf("10.0.%d.%d", i/250, i%250), []string{"https", "dns", "ssh", "quic"}[i%4]}
		data[i] = []any{keys, []float64{float64(1000 + i*37), float64(10 + i%97), float64(1 + i%13)}}
	}
	return map[string]any{"data": data, "meta": map[string]any{"accumulated_time": 86400, "elapsed": 0.042, "sorted": false}}
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

// BenchmarkCompressStream writes streams plainly and gzipped, in both framings, and reports the
// bytes sent per stream: query, one chunk of a 2,000-group answer; rows, the same groups as
// 2,000 chunks, each flushed alone (a live stream whose messages each go alone: the least a
// stream compresses); rows-batched, the same flushed once at the end (a fast producer, whose
// messages share flushes); echo, one small chunk. Then the end message.
func BenchmarkCompressStream(b *testing.B) {
	answer := queryAnswer()
	rows := answer["data"].([]any)
	streams := []struct {
		name    string
		chunks  []any
		batched bool
	}{{"query", []any{answer}, false}, {"rows", rows, false}, {"rows-batched", rows, true},
		{"echo", []any{map[string]any{"a": 1, "text": "hello"}}, false}}
	for _, s := range streams {
		var msgs [][]byte
		for _, c := range s.chunks {
			m := new(bytes.Buffer)
			if err := appendChunk(m, "", c); err != nil {
				b.Fatal(err)
			}
			msgs = append(msgs, m.Bytes())
		}
		end := new(bytes.Buffer)
		appendEnd(end, "")
		msgs = append(msgs, end.Bytes())
		for _, f := range []framing{ndjsonFraming{}, sseFraming{}} {
			for _, gz := range []bool{false, true} {
				name := s.name + "/" + map[bool]string{false: "ndjson", true: "sse"}[f == framing(sseFraming{})] +
					map[bool]string{false: "/plain", true: "/gzip"}[gz]
				b.Run(name, func(b *testing.B) {
					var out bytes.Buffer
					for b.Loop() {
						out.Reset()
						var w io.Writer = &out
						var z *gzipWriter
						if gz {
							z = newGzipWriter(&out, 1024)
							w = z
						}
						for _, m := range msgs {
							_ = f.writeMessage(w, m)
							if z != nil && !s.batched {
								_ = z.Flush()
							}
						}
						if z != nil {
							_ = z.Close()
						}
					}
					b.ReportMetric(float64(out.Len()), "bytes/stream")
				})
			}
		}
	}
}
