package engine

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testhist"
)

// failingCASHistory draws a small compare-and-set register history in
// which many compare-and-sets fail (generated over one to three values,
// or crashedHistory's), with about a third of the operations crashed
// in half of them: what the frontier's covering across compare-and-sets
// known to fail (failMask) acts on.
func failingCASHistory(rng *rand.Rand) *h.History {
	if rng.IntN(2) == 0 {
		return crashedHistory(rng, h.CASRegister)
	}
	cfg := gen.Config{Object: h.CASRegister, Ops: 4 + rng.IntN(9), Concurrency: 2 + rng.IntN(5), Seed: rng.Int64(),
		Mutate: rng.IntN(2), Values: 1 + rng.IntN(3), Pending: rng.IntN(3)}
	if hist, err := gen.History(cfg); err == nil {
		return hist
	}
	return crashedHistory(rng, h.CASRegister)
}

// A configuration that took, as a success, a compare-and-set known to
// fail is covered by one alike that did not (failMask): against
// ENUMERATE -c and Porcupine on small compare-and-set histories with
// many failures, open and crashed operations: the same verdict, every
// ok exact, every violation at the step both find. Covering by one that
// took it instead, or by one that did not take a compare-and-set known
// to succeed, reports violations early or on linearizable histories.
func TestFrontierFailCoverDifferential(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 11))
	n := scale(800)
	var tl frontierTally
	fails := 0
	for i := 0; i < n; i++ {
		hist := failingCASHistory(rng)
		for _, o := range hist.Ops {
			if o.Label.Method == h.CAS && o.Label.Ret == h.Fail {
				fails++
			}
		}
		tl.agree(t, fmt.Sprintf("history %d", i), hist, 7)
	}
	tl.bothWays(t)
	if fails == 0 {
		t.Fatal("no compare-and-set failed")
	}
	t.Logf("%d histories: %d violations, %d linearizable; %d failed compare-and-sets", n, tl.viol, tl.ok, fails)
}

// At a write's return, a configuration that explains it as a hidden
// write goes to the new set, and of its extensions only those that take
// the write itself do (ret: hid): the others stand for what the
// configuration may still be extended by. On generated Jepsen histories
// where writes overlap many reads and compare-and-sets (3–8 clients, 2–4
// values, some crashed, some with a stale read), the default gives
// Porcupine's verdict, exact, and on the shorter ones the first violating
// prefix. Keeping from out an extension that took the write, or one of a
// configuration that did not explain it, fails here.
func TestFrontierHiddenWriteReturns(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 13))
	n := scale(600)
	var viol, ok int
	for i := 0; i < n; i++ {
		cfg := gen.JepsenConfig{Ops: 8 + rng.IntN(25), Clients: 3 + rng.IntN(6), Values: 2 + rng.IntN(3),
			Reads: 0.3 + 0.3*rng.Float64(), CAS: 0.3 * rng.Float64(), Info: 0.1 * rng.Float64(),
			Stale: rng.IntN(3) == 0, Seed: rng.Int64()}
		if gen.Jepsen(cfg, io.Discard) != nil {
			continue // no stale read could be placed
		}
		hist := jepsenHistory(t, cfg)
		got := check(hist, Options{})
		if got.Algorithm != FrontierAlgorithm || !got.Exact {
			t.Fatalf("history %d: %s, exact %v\n%v", i, got.Algorithm, got.Exact, hist)
		}
		if len(hist.Ops) <= 16 {
			pstep := firstViolation(hist)
			if (pstep != 0) != (got.Verdict == Violation) || pstep != 0 && pstep != *got.ViolationStep {
				t.Fatalf("history %d: default %v at %v, porcupine's first violating prefix %d\n%v", i,
					got.Verdict, testhist.Step(got.ViolationStep), pstep, hist)
			}
		} else if want := testhist.PorcupineLinearizable(hist); (got.Verdict == OK) != want {
			t.Fatalf("history %d: default %v, porcupine linearizable %v\n%v", i, got.Verdict, want, hist)
		}
		if got.Verdict == Violation {
			viol++
		} else {
			ok++
		}
	}
	if viol == 0 || ok == 0 {
		t.Fatalf("%d violations, %d linearizable: the histories do not test both ways", viol, ok)
	}
	t.Logf("%d histories: %d violations, %d linearizable", n, viol, ok)
}
