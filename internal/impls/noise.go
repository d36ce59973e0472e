// Package impls holds concurrent object implementations, correct and
// deliberately faulty, run under the recorder.
//
// The faulty implementations are wrong at the level of the algorithm, never
// by injecting results, and they are still free of data races in the sense
// of the Go memory model (shared words are accessed with sync/atomic), so
// their behaviour is defined and the race detector stays quiet. Their
// violations come from interleavings, which the Noise points inside the
// operations make likely.
package impls

import (
	"math/rand/v2"
	"runtime"
	"sync/atomic"
)

// Noise is the probability, from 0 to 1, that an operation gives up its
// processor at an interference point: a spot between two of its shared
// memory steps where another thread's step changes the outcome.
type Noise float64

// Point is an interference point: with probability n it yields to the
// scheduler or spins briefly, so that other goroutines run their steps
// here. The randomness is the runtime's per-thread generator, cheap and
// unseeded: schedules are not reproducible anyway.
func (n Noise) Point() {
	if n <= 0 || rand.Float64() >= float64(n) {
		return
	}
	if rand.IntN(2) == 0 {
		runtime.Gosched()
		return
	}
	spin(16 + rand.IntN(4096))
}

var spinSink atomic.Uint64

// spin burns a few hundred nanoseconds without yielding, so that a
// goroutine running in parallel on another processor overtakes this one.
func spin(k int) {
	x := uint64(k)
	for i := 0; i < k; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	if x == 0 {
		spinSink.Add(1) // never true in practice; keeps the loop from being optimised away
	}
}
