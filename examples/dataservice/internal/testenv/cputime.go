package testenv

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time (user and system) the process has used so far, every thread's:
// Go's, and those of a store's C library such as DuckDB's. Benchmarks report it per unit of
// work, a figure that a busy machine disturbs less than the wall-clock rate.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
