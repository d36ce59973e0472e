package multi

import (
	"fmt"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testutil"
)

// TestStreamRestartFrontier checks Stream's drop points on the registers,
// which the default variant checks with the frontier: it holds a read's
// call back until the read returns (frontmon.go), so a register whose
// monitor were dropped with an operation open, or in a state not known,
// would restart wrong. On logs of the three registers, each object is
// asserted at rest only when no operation of it is open, and the stream
// is thrown away and restored from the checkpoints at every third event
// or so (far more often than TestStreamRestart); the violations must be
// CheckMulti's, step for step, and a linearizable log must stay ok.
func TestStreamRestartFrontier(t *testing.T) {
	t.Parallel()
	for seed := range int64(testutil.Scale(3)) {
		for _, mutate := range []int{0, 1} {
			t.Run(fmt.Sprintf("seed%d-mutate%d", seed, mutate), func(t *testing.T) {
				t.Parallel()
				testStreamRestartFrontier(t, seed, mutate)
			})
		}
	}
}

func testStreamRestartFrontier(t *testing.T, seed int64, mutate int) {
	kinds := []h.Object{h.Register, h.CASRegister, h.StringRegister}
	var specs []gen.ObjectSpec
	for i := range 45 {
		specs = append(specs, gen.ObjectSpec{Name: fmt.Sprintf("r%d", i), Config: gen.Config{
			Object: kinds[i%len(kinds)], Ops: 16, Concurrency: 1 + i%4, Seed: seed*1000 + int64(i), Values: 3,
			Mutate: mutate * (i % 2)}})
	}
	runStreamRestart(t, restartCase{specs: specs, seed: seed, mutate: mutate, every: 3, stream: 11, frontier: true})
}
