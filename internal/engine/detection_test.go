package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/testhist"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
)

// SATURATE, the default, is sound but incomplete: an ok from it means "no
// violation found". This test measures how many violations it finds, with
// and without -r, against an exact checker, on two populations: small
// random histories (ENUMERATE -c decides them) and generated histories of
// 30 operations with one or two injected faults (SYMBOLIC, which is exact
// without -r, decides them). It fails on any false violation. The README
// quotes the rates from a run at SATMON_DIFF_SCALE=20 with -v, as `make
// test-long` runs it.
func TestSaturateDetectionRate(t *testing.T) {
	t.Parallel()
	type count struct{ viol, plain, removing int }
	measure := func(t *testing.T, n int, draw func(rng *rand.Rand, obj h.Object) *h.History, exact Options) {
		rng := rand.New(rand.NewPCG(14, 14))
		n = max(n, len(h.Objects)) // every object, at any scale
		counts := map[h.Object]*count{}
		var all count
		for i := 0; i < n; i++ {
			obj := h.Objects[i%len(h.Objects)]
			hist := draw(rng, obj)
			want := check(hist, exact)
			if want.Verdict == Error {
				t.Fatalf("history %d: %s: %s", i, exact.Name(), want.Error)
			}
			c := counts[obj]
			if c == nil {
				c = &count{}
				counts[obj] = c
			}
			for _, r := range []bool{false, true} {
				got := check(hist, Options{Algorithm: Saturate, RemoveObsolete: r})
				if got.Verdict != Violation {
					continue
				}
				if want.Verdict != Violation || *got.ViolationStep < *want.ViolationStep {
					t.Fatalf("FALSE VIOLATION: history %d: %s says violation at %d, %s says %s at %v\n%v",
						i, got.Algorithm, *got.ViolationStep, exact.Name(), want.Verdict, testhist.Step(want.ViolationStep), hist)
				}
				if r {
					c.removing++
					all.removing++
				} else {
					c.plain++
					all.plain++
				}
			}
			if want.Verdict == Violation {
				c.viol++
				all.viol++
			}
		}
		if all.viol == 0 || all.removing == 0 {
			t.Fatalf("%d violations, %d found: the test tests nothing", all.viol, all.removing)
		}
		pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
		for _, obj := range h.Objects {
			c := counts[obj]
			t.Logf("%-22s %5d violations; saturate -r finds %5d (%5.1f%%), saturate %5d (%5.1f%%)",
				obj, c.viol, c.removing, pct(c.removing, c.viol), c.plain, pct(c.plain, c.viol))
		}
		t.Logf("%-22s %5d violations; saturate -r finds %5d (%5.1f%%), saturate %5d (%5.1f%%)",
			"all", all.viol, all.removing, pct(all.removing, all.viol), all.plain, pct(all.plain, all.viol))
	}
	t.Run("random-small", func(t *testing.T) {
		measure(t, scale(800), func(rng *rand.Rand, obj h.Object) *h.History { return testhist.RandomHistory(rng, obj, 8) }, enumC)
	})
	t.Run("generated-faulty", func(t *testing.T) {
		measure(t, scale(240), func(rng *rand.Rand, obj h.Object) *h.History {
			cfg := gen.Config{Object: obj, Ops: 30, Concurrency: 2 + rng.IntN(4), Seed: rng.Int64(), Mutate: 1 + rng.IntN(2)}
			switch obj {
			case h.Semaphore:
				cfg.Capacity = 1 + rng.IntN(3)
			case h.Register, h.Set:
				cfg.Values = rng.IntN(4)
			default:
				cfg.Capacity = rng.IntN(6)
			}
			hist, err := gen.History(cfg)
			if err != nil {
				t.Fatal(err)
			}
			return hist
		}, Options{Algorithm: Symbolic})
	})
}
