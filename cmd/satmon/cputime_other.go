//go:build !unix

package main

import "time"

// cpuTime is not measured on this platform: -1.
func cpuTime() time.Duration { return -1 }
