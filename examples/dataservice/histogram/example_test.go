package histogram_test

import (
	"fmt"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
)

func Example() {
	var morning, evening histogram.Histogram
	for _, ms := range []float64{12, 15, 11, 90} {
		morning.Add(ms / 1000)
	}
	for _, ms := range []float64{14, 13, 200} {
		evening.Add(ms / 1000)
	}
	var day histogram.Histogram
	day.Merge(morning)
	day.Merge(evening)
	p50, _ := day.Quantile(0.50)
	p95, _ := day.Quantile(0.95)
	fmt.Printf("samples %d, p50 %.1f ms, p95 %.0f ms\n", day.Count(), p50*1000, p95*1000)
	// Output: samples 7, p50 13.9 ms, p95 203 ms
}
