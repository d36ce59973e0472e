package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testhist"
)

// In the queue, stack, priority queue and register kernels the encoder
// reads a pending remove's (read's) partners on demand instead of storing
// every pair (encode/partners.go). These generated histories keep many
// adds (writes) in the window while removes are pending, stall some
// operations and inject faults: SATURATE, with and without -r, must never
// report a violation that exact SYMBOLIC does not confirm at the same
// step or earlier, and without -r it must agree with the full grounding,
// verdict and step.
func TestWideWindowPartnersSound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 5))
	n := scale(600)
	objs := []h.Object{h.Queue, h.Stack, h.PQueue, h.Register}
	viol := 0
	for i := 0; i < n; i++ {
		obj := objs[i%len(objs)]
		cfg := gen.Config{Object: obj, Ops: 24 + rng.IntN(24), Concurrency: 4 + rng.IntN(5), Seed: rng.Int64(),
			Mutate: rng.IntN(3), Values: rng.IntN(4)}
		cfg.Pending = rng.IntN(3)
		hist, err := gen.History(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var exact *Result
		for _, r := range []bool{false, true} {
			got := check(hist, Options{Algorithm: Saturate, RemoveObsolete: r})
			if got.Verdict == Violation {
				viol++
				if exact == nil {
					ex := check(hist, Options{Algorithm: Symbolic})
					exact = &ex
				}
				if exact.Verdict != Violation || *got.ViolationStep < *exact.ViolationStep {
					t.Fatalf("FALSE VIOLATION: history %d (-r %v): saturate says violation at %d, symbolic says %s at %v\n%v",
						i, r, *got.ViolationStep, exact.Verdict, testhist.Step(exact.ViolationStep), hist)
				}
			}
			if r {
				continue
			}
			want := checkTuned(hist, tuned{Options{Algorithm: Saturate}, tuning{eager: true}})
			if got.Verdict != want.Verdict || testhist.Step(got.ViolationStep) != testhist.Step(want.ViolationStep) {
				t.Fatalf("history %d: lazy grounding says %s at %v, full grounding %s at %v\n%v",
					i, got.Verdict, testhist.Step(got.ViolationStep), want.Verdict, testhist.Step(want.ViolationStep), hist)
			}
		}
	}
	if viol == 0 {
		t.Fatal("no violation found: the comparison tests nothing")
	}
	t.Logf("%d histories, %d violations, each confirmed by symbolic", n, viol)
}
