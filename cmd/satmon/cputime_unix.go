//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process used so far (user and system):
// satmon scale prints it beside wall time, which on a shared machine
// mostly measures the neighbours.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
