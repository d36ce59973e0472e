package encode

import (
	"fmt"
	"testing"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// TestWatchedSameFixpointSwept is TestWatchedSameFixpoint with the arenas
// swept often (minCompact lowered): a sweep must keep every instance that
// is neither done nor dead, and rebuild the watch lists so that each is
// still woken when it becomes unit or false. TestWatchedCountsSweep
// sweeps too, but compares two watched runs, which may both lose the
// same instance; here the reference is eager grounding, which sweeps
// nothing.
func TestWatchedSameFixpointSwept(t *testing.T) {
	defer func(m int) { minCompact = m }(minCompact)
	minCompact = 4
	materialised := 0
	for _, obj := range h.Objects {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= seeds(60); seed++ {
			cfg := seedConfig(obj, seed, 40, 1+int(seed%6))
			cfg.Capacity = 3
			acts := generate(t, cfg)
			materialised += compareFixpoints(t, fmt.Sprintf("%v/seed%d", obj, seed), k, acts, seed)
		}
	}
	if materialised == 0 {
		t.Fatal("no watched instance was materialised: the comparison tests nothing")
	}
}
