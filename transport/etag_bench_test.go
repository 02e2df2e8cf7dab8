package transport

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkETag is the cost of an answer's ETag alone, for the messages of
// BenchmarkReadOnlyGET (112 B and 2.8 KB).
func BenchmarkETag(b *testing.B) {
	for _, size := range []int{112, 2804} {
		body := bytes.Repeat([]byte{'x'}, size)
		b.Run(fmt.Sprint(size, "B"), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				_ = etag(body, false)[0]
			}
		})
	}
}
