package bgp

// FullTable and LiveHeap serve the benchmarks of package bgp_test (fulltable_test.go).
var (
	FullTable = fullTable
	LiveHeap  = liveHeap
)
