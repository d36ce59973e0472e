package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
)

// degrade at the return of a write or a successful compare-and-set j
// must not take j's state for the state after the return: operations that
// returned before j may have taken effect after it. In each history an
// operation called and returned within j's call and return changes the
// state after j took effect, and a later operation observes that state;
// open writes called meanwhile make j's return the costly one. Every
// budget from 1 to 12 configurations a return is tried.
func TestFrontierDegradeKeepsLaterStates(t *testing.T) {
	t.Parallel()
	logs := []string{
		// cas(0,1) takes effect first, write(2) after it.
		"# @object cas-register 0\n[1] call cas(0, 1)\n[2] call write(2)\n[2] return\n[4] call write(5)\n[5] call write(6)\n[6] call read\n" +
			"[1] return ok\n[3] call cas(2, 3)\n[3] return ok\n[4] return\n[5] return\n[6] return 6\n",
		// write(1) takes effect after write(2), or hidden before it.
		"# @object register 0\n[1] call write(1)\n[2] call write(2)\n[2] return\n[4] call write(5)\n[5] call write(6)\n[6] call read\n" +
			"[1] return\n[3] call read\n[3] return 1\n[7] call read\n[7] return 1\n[4] return\n[5] return\n[6] return 6\n",
		"# @object register 0\n[1] call write(1)\n[2] call write(2)\n[2] return\n[4] call write(5)\n[5] call write(6)\n[6] call read\n" +
			"[1] return\n[3] call read\n[3] return 2\n[4] return\n[5] return\n[6] return 6\n",
	}
	for i, log := range logs {
		hist, want := linearizableCase(t, i, log)
		lost := false
		for budget := 1; budget <= 12; budget++ {
			_, l := fallbackCase(t, hist, 0, budget, want, 0, fmt.Sprintf("case %d", i))
			lost = lost || l
		}
		if !lost {
			t.Errorf("case %d: no budget made the frontier lose exactness", i)
		}
	}
}

// The fallback's soundness on small generated Jepsen histories (2–7
// clients, :info crashes, compare-and-sets in half of them, stale reads
// in a third), each checked under every budget from 1 to 30
// configurations a return and every limit from 1 to 5 operations open at
// once: the frontier alone (no kernel confirmation) never finds a
// violation the exact check does not have, nor one before the first
// violating prefix.
func TestFrontierFallbackSoundAllLimits(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 11))
	n := scale(150)
	var lost, viol int
	for i := 0; i < n; i++ {
		cfg := gen.JepsenConfig{Ops: 10 + rng.IntN(30), Clients: 2 + rng.IntN(6), Values: 2 + rng.IntN(3),
			Reads: 0.5, CAS: []float64{0, 0.3}[i%2], Info: 0.1, Stale: i%3 == 2, Seed: rng.Int64()}
		var hist *h.History
		if hist = tryJepsen(t, cfg); hist == nil {
			cfg.Stale = false // no stale read could be placed
			hist = jepsenHistory(t, cfg)
		}
		want := check(hist, Options{})
		if !want.Exact {
			t.Fatalf("%+v: the unlimited check is not exact", cfg)
		}
		first := 0
		if want.Verdict == Violation {
			first = *want.ViolationStep
			viol++
		}
		run := func(open, budget int) {
			step, l := frontierReplay(t, hist, open, budget)
			if step != 0 && (first == 0 || step < first) {
				t.Fatalf("%+v, limits %d open, %d configurations: the frontier alone finds a violation at step %d (exact: %v at %d)\n%v",
					cfg, open, budget, step, want.Verdict, first, hist)
			}
			if l {
				lost++
			}
		}
		for budget := 1; budget <= 30; budget++ {
			run(0, budget)
		}
		for open := 1; open <= 5; open++ {
			run(open, 0)
		}
	}
	t.Logf("%d histories (%d violating), 35 limits each: exactness lost in %d runs", n, viol, lost)
	if lost == 0 {
		t.Fatal("the limits never made the frontier lose exactness")
	}
}

// tryJepsen is jepsenHistory, or nil when gen cannot place the stale read
// cfg asks for.
func tryJepsen(t *testing.T, cfg gen.JepsenConfig) *h.History {
	t.Helper()
	var b strings.Builder
	if err := gen.Jepsen(cfg, &b); err != nil {
		return nil
	}
	return jepsenHistory(t, cfg)
}
