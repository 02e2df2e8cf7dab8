package bgp

import "time"

// FullTable and LiveHeap serve the benchmarks of package bgp_test (fulltable_test.go).
var (
	FullTable = fullTable
	LiveHeap  = liveHeap
)

// SetDrainTime sets how long a session's end drains the router's connection, and returns what
// restores it; for a test that is not parallel.
func SetDrainTime(d time.Duration) func() {
	old := drainTime
	drainTime = d
	return func() { drainTime = old }
}
