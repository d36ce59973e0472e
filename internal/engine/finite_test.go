package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/testhist"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testutil"
)

// streamSymbolic checks hist with exact SYMBOLIC at every return (no
// Finite): the reference that Finite's bisection must reproduce.
func streamSymbolic(t *testing.T, hist *h.History) Result {
	t.Helper()
	m, err := New(hist.Object, hist.Param, Options{Algorithm: Symbolic})
	if err != nil {
		t.Fatal(err)
	}
	for a := range actionSeq(hist) {
		if _, err := m.Step(a); err != nil {
			t.Fatal(err)
		}
		if m.Done() {
			break
		}
	}
	return m.Result()
}

func outcome(r Result) string {
	s := string(r.Verdict)
	if r.ViolationStep != nil {
		s += fmt.Sprintf("@%d line %d op %s; %d steps, %d ops, window max %d mean %.3f",
			*r.ViolationStep, r.ViolationLine, r.ViolationOp, r.Steps, r.Operations, r.Stats.MaxWindow, r.Stats.MeanWindow)
	}
	return s
}

// TestFiniteBisectionAgrees checks that a finite log's one solve and
// bisection (CheckHistory makes the monitor Finite) report what SYMBOLIC
// checking every return reports — verdict, step, line, operation and the
// counts up to the violation — and that the verdict is ENUMERATE -c's, on
// random histories of every object, half of them mutated.
func TestFiniteBisectionAgrees(t *testing.T) {
	t.Parallel()
	n := testutil.Scale(20)
	viol, total := 0, 0
	for _, obj := range h.Objects {
		rng := rand.New(rand.NewPCG(uint64(obj), 38))
		for i := 0; i < n; i++ {
			total++
			var hist *h.History
			if i%4 == 3 {
				hist, _ = gen.History(gen.Config{Object: obj, Ops: 10 + rng.IntN(20), Concurrency: 2 + rng.IntN(4),
					Seed: rng.Int64(), Mutate: rng.IntN(2), Capacity: 1 + rng.IntN(3)})
			}
			if hist == nil {
				hist = testhist.RandomHistory(rng, obj, 8)
			}
			want := streamSymbolic(t, hist)
			got := check(hist, Options{Algorithm: Symbolic})
			if outcome(got) != outcome(want) {
				t.Fatalf("%s #%d: finite %s, every return %s\n%v", obj, i, outcome(got), outcome(want), hist)
			}
			if len(hist.Ops) <= 8 {
				if ref := check(hist, Options{Algorithm: Enumerate, Completion: true}); ref.Verdict != got.Verdict {
					t.Fatalf("%s #%d: symbolic %s, enumerate -c %s\n%v", obj, i, got.Verdict, ref.Verdict, hist)
				}
			}
			if got.Verdict == Violation {
				viol++
				// The bisection solves about log₂(returns) + 1 times.
				if ops := len(hist.Ops); got.Stats.Checks > 2+bitsLen(ops) {
					t.Errorf("%s #%d: %d checks for %d operations", obj, i, got.Stats.Checks, ops)
				}
			}
		}
	}
	if viol == 0 || viol == total {
		t.Errorf("%d violations in %d histories: the comparison tests one side only", viol, total)
	}
}

func bitsLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}
