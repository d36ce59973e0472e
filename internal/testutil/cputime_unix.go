//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time used by the process so far. Benchmarks
// report it beside wall time because the machines they run on are shared
// and wall time then mostly measures the neighbours.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
