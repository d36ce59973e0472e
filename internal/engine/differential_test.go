package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/testhist"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/seqmodel"
	"github.com/satmon/satmon/internal/testutil"
	"github.com/satmon/satmon/theory"
)

// scale is testutil.Scale: the one knob that sizes every heavy test.
func scale(n int) int { return testutil.Scale(n) }

// scaleMin is testutil.ScaleMin: scale, but never fewer than floor, the
// variants a test's seeds cycle through.
func scaleMin(n, floor int) int { return testutil.ScaleMin(n, floor) }

func mustKernel(t testing.TB, hist *h.History) *theory.Kernel {
	k, err := theory.KernelOf(hist.Object, hist.Param)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The kernel theories, evaluated by ENUMERATE -c, agree with plain
// executable sequential models (written independently of theory/) on
// random small histories, pending operations included.
func TestTheoryAgreesWithSequentialModels(t *testing.T) {
	t.Parallel()
	objs := []h.Object{h.Queue, h.Stack, h.PQueue, h.Set, h.Register, h.Lock, h.Semaphore, h.Exchanger}
	for _, obj := range objs {
		t.Run(obj.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(obj)))
			n, bad := scale(2000), 0
			for i := 0; i < n; i++ {
				hist := testhist.RandomHistory(rng, obj, 7)
				got, err := enumerateMember(mustKernel(t, hist), hist, nil)
				if err != nil {
					t.Fatal(err)
				}
				if got {
					bad++
				}
				if want := seqmodel.Linearizable(hist); got != want {
					t.Fatalf("history %d: theory says member=%v, sequential model says %v\n%v", i, got, want, hist)
				}
			}
			t.Logf("%d histories, %d linearizable", n, bad)
		})
	}
}

// Every exact variant agrees with ENUMERATE -c, step by step, on random
// histories of up to 8 operations over all eight objects.
func TestExactVariantsAgree(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 2))
	n := scale(1000)
	variants := exactVariants()
	for i := 0; i < n; i++ {
		obj := h.Objects[i%len(h.Objects)]
		hist := testhist.RandomHistory(rng, obj, 8)
		want := check(hist, enumC)
		for _, opt := range variants {
			got := check(hist, opt)
			if got.Verdict != want.Verdict || testhist.Step(got.ViolationStep) != testhist.Step(want.ViolationStep) {
				t.Fatalf("history %d: %s (%s) says %s at %v, enumerate -c says %s at %v\n%v", i, opt.Name(), opt.Solver,
					got.Verdict, testhist.Step(got.ViolationStep), want.Verdict, testhist.Step(want.ViolationStep), hist)
			}
		}
	}
	t.Logf("%d histories × %d variants agree with enumerate -c", n, len(variants))
}

// SATURATE never reports a violation that ENUMERATE -c does not confirm
// at the same step or earlier, and we count how many violations it finds.
func TestSaturateSound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	n := scale(6000)
	found, missed := map[h.Object]int{}, map[h.Object]int{}
	for i := 0; i < n; i++ {
		obj := h.Objects[i%len(h.Objects)]
		hist := testhist.RandomHistory(rng, obj, 8)
		want := check(hist, enumC)
		got := check(hist, Options{Algorithm: Saturate})
		if got.Verdict == Violation {
			if want.Verdict != Violation || *got.ViolationStep < *want.ViolationStep {
				t.Fatalf("FALSE VIOLATION: history %d: saturate says violation at %d, enumerate -c says %s at %v\n%v",
					i, *got.ViolationStep, want.Verdict, testhist.Step(want.ViolationStep), hist)
			}
			found[obj]++
		} else if want.Verdict == Violation {
			missed[obj]++
		}
	}
	for _, obj := range h.Objects {
		t.Logf("%-22s saturate found %4d of %4d violations", obj, found[obj], found[obj]+missed[obj])
	}
}

// With -r, no algorithm reports a violation that ENUMERATE -c does not
// confirm at the same step or earlier. The random histories include
// pending operations overlapping removed matches, repeated tags (the
// garbage histories draw from three values) and register histories like
// Example 5.6's.
func TestRemovalSound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	n := scale(1500)
	variants := []Options{
		{Algorithm: Saturate, RemoveObsolete: true},
		{Algorithm: Symbolic, RemoveObsolete: true},
		{Algorithm: Symbolic, Incremental: true, RemoveObsolete: true},
	}
	removed := 0
	for i := 0; i < n; i++ {
		obj := h.Objects[i%len(h.Objects)]
		hist := testhist.RandomHistory(rng, obj, 9)
		var oracle exactOracle
		for _, opt := range variants {
			got := check(hist, opt)
			removed += got.Stats.Removed
			oracle.confirm(t, i, hist, got, opt.Name())
		}
	}
	if removed == 0 {
		t.Fatal("no operation was ever removed: the test tests nothing")
	}
	t.Logf("%d histories, %d operations removed in all", n, removed)
}

// exactOracle is ENUMERATE -c's verdict on one history, computed the first
// time a checker under test reports a violation on it.
type exactOracle struct{ want *Result }

// confirm fails the test if got is a violation that ENUMERATE -c does not
// confirm at the same step or earlier, and reports whether got is a
// violation.
func (x *exactOracle) confirm(t *testing.T, i int, hist *h.History, got Result, what string) bool {
	t.Helper()
	if got.Verdict != Violation {
		return false
	}
	if x.want == nil {
		w := check(hist, enumC)
		x.want = &w
	}
	if x.want.Verdict != Violation || *got.ViolationStep < *x.want.ViolationStep {
		t.Fatalf("FALSE VIOLATION: history %d: %s says violation at %d, enumerate -c says %s at %v\n%v",
			i, what, *got.ViolationStep, x.want.Verdict, testhist.Step(x.want.ViolationStep), hist)
	}
	return true
}

// SATURATE grounds transitivity when it becomes unit and the matching
// axioms when their match variables exist (encode/order.go,
// encode/lazymatch.go). Unit propagation must reach the same fixpoint as
// on the full grounding: the same verdict at the same step, with and
// without -r, on random small histories and on longer generated ones
// (injected faults included).
//
// With -r the two differ on purpose: SATURATE's watched instances treat a
// forgotten witness as false (encode.ClosedRemoval), the full grounding's
// clauses die with it. So with -r lazy grounding must find every
// violation the full grounding finds, no later, and whatever more or
// earlier it finds exact SYMBOLIC must confirm (ENUMERATE -c is too slow
// on the longer generated histories).
func TestLazyGroundingExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	n := scale(1000)
	viol, stronger := 0, 0
	for i := 0; i < n; i++ {
		obj := h.Objects[i%len(h.Objects)]
		var hist *h.History
		if i%3 == 2 {
			cfg := gen.Config{Object: obj, Ops: 20 + rng.IntN(40), Concurrency: 2 + rng.IntN(7), Seed: rng.Int64(),
				Mutate: rng.IntN(3), Capacity: rng.IntN(6)}
			if obj == h.Semaphore {
				cfg.Capacity = 1 + rng.IntN(3)
			}
			cfg.Pending = rng.IntN(cfg.Concurrency + 1)
			if obj == h.Register || obj == h.Set {
				cfg.Values = rng.IntN(5)
			}
			var err error
			if hist, err = gen.History(cfg); err != nil {
				t.Fatal(err)
			}
		} else {
			hist = testhist.RandomHistory(rng, obj, 9)
		}
		for _, r := range []bool{false, true} {
			want := checkTuned(hist, tuned{Options{Algorithm: Saturate, RemoveObsolete: r}, tuning{eager: true}})
			got := check(hist, Options{Algorithm: Saturate, RemoveObsolete: r})
			if r && got.Verdict == Violation && (want.Verdict != Violation || *got.ViolationStep < *want.ViolationStep) {
				if ex := check(hist, Options{Algorithm: Symbolic}); ex.Verdict != Violation || *got.ViolationStep < *ex.ViolationStep {
					t.Fatalf("FALSE VIOLATION: history %d: saturate -r says violation at %d, symbolic says %s at %v\n%v",
						i, *got.ViolationStep, ex.Verdict, testhist.Step(ex.ViolationStep), hist)
				}
				stronger++
				viol++
				continue
			}
			if got.Verdict != want.Verdict || testhist.Step(got.ViolationStep) != testhist.Step(want.ViolationStep) {
				t.Fatalf("history %d (-r %v): lazy grounding says %s at %v, full grounding %s at %v\n%v",
					i, r, got.Verdict, testhist.Step(got.ViolationStep), want.Verdict, testhist.Step(want.ViolationStep), hist)
			}
			if got.Verdict == Violation {
				viol++
			}
		}
	}
	if viol == 0 {
		t.Fatal("no violation found: the comparison tests nothing")
	}
	t.Logf("%d histories, with and without -r: lazy and full grounding agree (%d violations; with -r, %d found by lazy grounding only or earlier, each confirmed by symbolic)", n, viol, stronger)
}
