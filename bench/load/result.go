package load

import (
	"slices"
	"time"
)

// Result is what one load run measured.
type Result struct {
	// Calls is the number of calls answered within the run.
	Calls int64
	// Errors counts failed calls: socket errors, non-2xx statuses, WebSocket answers that are
	// not results.
	Errors int64
	// Elapsed is the length of the run.
	Elapsed time.Duration
	// P50 and P99 are the median and 99th-percentile latency of a call.
	P50, P99 time.Duration
	// LoadCPU is the CPU time the load generator used: the wrk process, or this whole process
	// during a WebSocket run.
	LoadCPU time.Duration
}

// CallsPerSecond is Calls divided by Elapsed.
func (r Result) CallsPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Calls) / r.Elapsed.Seconds()
}

// percentile returns the nearest-rank p-th percentile (0 < p <= 100) of ds, sorting ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(p/100*float64(len(ds))+0.5) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}
