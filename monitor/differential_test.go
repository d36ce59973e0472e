package monitor

import (
	"math/rand/v2"
	"strconv"
	"testing"

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

// randomHistory draws a small history of obj. Half come from the
// generator (linearizable, or mutated), half are random labels with
// random intervals over a tiny value pool — mostly violations, and the
// kind of odd input a buggy implementation produces.
func randomHistory(rng *rand.Rand, obj h.Object, maxOps int) *h.History {
	if obj == h.CASRegister || obj == h.StringRegister {
		// Their values repeat, so every read has several candidate
		// writes: ENUMERATE's matchings grow as candidates^ops.
		maxOps = min(maxOps, 6)
	}
	n := 1 + rng.IntN(maxOps)
	if rng.IntN(2) == 0 {
		cfg := gen.Config{Object: obj, Ops: n, Concurrency: 1 + rng.IntN(4), Seed: rng.Int64(),
			Mutate: rng.IntN(3), Capacity: rng.IntN(4)}
		if obj == h.Semaphore {
			cfg.Capacity = 1 + rng.IntN(2)
		}
		cfg.Pending = rng.IntN(min(cfg.Concurrency, n) + 1)
		if obj == h.Register || obj == h.Set {
			cfg.Values = rng.IntN(4)
		}
		if hist, err := gen.History(cfg); err == nil {
			return hist
		}
	}
	return garbageHistory(rng, obj, n)
}

func garbageHistory(rng *rand.Rand, obj h.Object, n int) *h.History {
	hist := &h.History{Object: obj}
	switch obj {
	case h.Semaphore:
		hist.Param = strconv.Itoa(1 + rng.IntN(2))
	case h.Register:
		if rng.IntN(2) == 0 {
			hist.Param = "0"
		}
	}
	sigs := h.Signatures(obj)
	vals := []h.Value{"0", "1", "2"}
	pick := func() h.Value { return vals[rng.IntN(len(vals))] }
	type ev struct {
		t    float64
		call bool
		op   int
	}
	var evs []ev
	for i := 0; i < n; i++ {
		s := sigs[rng.IntN(len(sigs))]
		l := h.Label{Method: s.Method}
		if s.MaxArgs > 0 && (s.MinArgs > 0 || rng.IntN(2) == 0) {
			l.Arg = pick()
		}
		if obj == h.PQueue && l.Method == h.Add {
			l.Prio = int64(rng.IntN(3))
		}
		if l.Method == h.CAS {
			l.Old = pick()
		}
		switch s.Ret {
		case h.RetBool:
			l.Ret = []h.Value{h.True, h.False}[rng.IntN(2)]
		case h.RetStatus:
			l.Ret = []h.Value{h.OK, h.Fail}[rng.IntN(2)]
		case h.RetValue:
			special := map[h.Object]h.Value{h.Exchanger: h.Null, h.Register: "", h.CASRegister: h.Nil}[obj]
			if special == "" && obj != h.Register {
				special = h.Empty
			}
			if special != "" && rng.IntN(4) == 0 {
				l.Ret = special
			} else {
				l.Ret = pick()
			}
		case h.RetOptional:
			if rng.IntN(3) > 0 {
				l.Ret = pick()
			}
		}
		start := rng.Float64() * float64(n)
		hist.Ops = append(hist.Ops, h.Op{ID: strconv.Itoa(i + 1), Label: l})
		evs = append(evs, ev{start, true, i})
		if rng.IntN(6) > 0 {
			evs = append(evs, ev{start + 0.1 + rng.Float64()*2, false, i})
		}
	}
	// Sort events by time (calls first at ties) and number them.
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evs[j].t < evs[j-1].t; j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
	for i := range hist.Ops {
		hist.Ops[i].Return = -1
	}
	for seq, e := range evs {
		if e.call {
			hist.Ops[e.op].Call = seq
		} else {
			hist.Ops[e.op].Return = seq
		}
	}
	for i := range hist.Ops {
		if hist.Ops[i].Pending() {
			hist.Ops[i].Label.Pending, hist.Ops[i].Label.Ret = true, h.Void
		}
	}
	// Ops must be listed in call order.
	ops := hist.Ops
	for i := 1; i < len(ops); i++ {
		for j := i; j > 0 && ops[j].Call < ops[j-1].Call; j-- {
			ops[j], ops[j-1] = ops[j-1], ops[j]
		}
	}
	return hist
}

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
				hist := randomHistory(rng, obj, 7)
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
		hist := randomHistory(rng, obj, 8)
		want := check(hist, enumC)
		for _, opt := range variants {
			got := check(hist, opt)
			if got.Verdict != want.Verdict || deref(got.ViolationStep) != deref(want.ViolationStep) {
				t.Fatalf("history %d: %s (%s) says %s at %v, enumerate -c says %s at %v\n%v", i, opt.Name(), opt.Solver,
					got.Verdict, deref(got.ViolationStep), want.Verdict, deref(want.ViolationStep), hist)
			}
		}
	}
	t.Logf("%d histories × %d variants agree with enumerate -c", n, len(variants))
}

func deref(p *int) any {
	if p == nil {
		return "-"
	}
	return *p
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
		hist := randomHistory(rng, obj, 8)
		want := check(hist, enumC)
		got := check(hist, Options{Algorithm: Saturate})
		if got.Verdict == Violation {
			if want.Verdict != Violation || *got.ViolationStep < *want.ViolationStep {
				t.Fatalf("FALSE VIOLATION: history %d: saturate says violation at %d, enumerate -c says %s at %v\n%v",
					i, *got.ViolationStep, want.Verdict, deref(want.ViolationStep), hist)
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
		hist := randomHistory(rng, obj, 9)
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
			i, what, *got.ViolationStep, x.want.Verdict, deref(x.want.ViolationStep), hist)
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
			hist = randomHistory(rng, obj, 9)
		}
		for _, r := range []bool{false, true} {
			want := checkTuned(hist, tuned{Options{Algorithm: Saturate, RemoveObsolete: r}, tuning{eager: true}})
			got := check(hist, Options{Algorithm: Saturate, RemoveObsolete: r})
			if r && got.Verdict == Violation && (want.Verdict != Violation || *got.ViolationStep < *want.ViolationStep) {
				if ex := check(hist, Options{Algorithm: Symbolic}); ex.Verdict != Violation || *got.ViolationStep < *ex.ViolationStep {
					t.Fatalf("FALSE VIOLATION: history %d: saturate -r says violation at %d, symbolic says %s at %v\n%v",
						i, *got.ViolationStep, ex.Verdict, deref(ex.ViolationStep), hist)
				}
				stronger++
				viol++
				continue
			}
			if got.Verdict != want.Verdict || deref(got.ViolationStep) != deref(want.ViolationStep) {
				t.Fatalf("history %d (-r %v): lazy grounding says %s at %v, full grounding %s at %v\n%v",
					i, r, got.Verdict, deref(got.ViolationStep), want.Verdict, deref(want.ViolationStep), hist)
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
