package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/testhist"

	h "github.com/satmon/satmon/internal/history"
)

// crashedHistory draws a small register history (frontierHistory's) and
// makes about a third of its operations crash: their returns dropped, so
// that they stay open to the end and the check abandons them. A crashed
// operation may take effect or not, so a linearizable history stays so,
// and many crashed writes and compare-and-sets of repeated values reach
// what the frontier's covering across operations taken and its merging
// of crashed operations used (frontier.covers, frontier.merge) act on.
func crashedHistory(rng *rand.Rand, obj h.Object) *h.History {
	maxOps := 14
	if obj == h.StringRegister {
		// Crashed appends in every order make many strings: past
		// about ten operations the frontier's budget is reached.
		maxOps = 9
	}
	hist := frontierHistory(rng, obj, maxOps)
	share := 2 + rng.IntN(4) // one in share crashes
	for i := range hist.Ops {
		if o := &hist.Ops[i]; !o.Pending() && rng.IntN(share) == 0 {
			o.Return = -1
			o.Label.Pending, o.Label.Ret = true, h.Void
		}
	}
	compact(hist)
	return hist
}

// The frontier's covering and merging against Porcupine on thousands of
// small register, compare-and-set and string-register histories where
// many operations crash (repeated values, 1–6 clients): the same verdict,
// every ok exact, every violation at the first prefix Porcupine rejects.
// Either reduction made unsound would report a violation on a
// linearizable history (or one return early); made too weak, it would
// miss none but cost time, which the benchmarks show.
func TestFrontierCrashedAgainstPorcupine(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 7))
	n := scale(3000)
	var tl frontierTally
	crashed := 0
	for i := 0; i < n; i++ {
		obj := registerObjects[i%3]
		hist := crashedHistory(rng, obj)
		for _, o := range hist.Ops {
			if o.Pending() && o.Label.Method != h.Read {
				crashed++
			}
		}
		tl.agree(t, fmt.Sprintf("history %d (%v)", i, obj), hist, 0)
	}
	tl.bothWays(t)
	t.Logf("%d histories: %d violations, %d linearizable; %d crashed operations that change the state", n, tl.viol, tl.ok, crashed)
}

// The register holds 3; two crashed writes, of 1 and of 2; a
// compare-and-set from 3 fails, so one of them took effect before a
// second write of 3 did; a read of 3 after
// that; then a read of 1, or of 2, which the other crashed write
// explains. Both histories are linearizable. After the failure the
// frontier merges the two configurations that differ only in which
// crashed write they used (frontier.merge): merged into either alone, one
// of the two histories would be reported in violation.
func TestFrontierMergedCrashedWrites(t *testing.T) {
	t.Parallel()
	for _, last := range []h.Value{"1", "2"} {
		hist := &h.History{Object: h.CASRegister, Ops: []h.Op{
			{ID: "w0", Label: h.Label{Method: h.Write, Arg: "3"}, Call: 0, Return: 1},
			{ID: "c1", Label: h.Label{Method: h.Write, Arg: "1", Pending: true}, Call: 2, Return: -1},
			{ID: "c2", Label: h.Label{Method: h.Write, Arg: "2", Pending: true}, Call: 3, Return: -1},
			{ID: "cas", Label: h.Label{Method: h.CAS, Old: "3", Arg: "5", Ret: h.Fail}, Call: 4, Return: 6},
			{ID: "w", Label: h.Label{Method: h.Write, Arg: "3"}, Call: 5, Return: 7},
			{ID: "r1", Label: h.Label{Method: h.Read, Ret: "3"}, Call: 8, Return: 9},
			{ID: "r2", Label: h.Label{Method: h.Read, Ret: last}, Call: 10, Return: 11},
		}}
		got := check(hist, Options{})
		if got.Verdict != OK || !got.Exact {
			t.Errorf("last read of %s: %v (exact %v), want an exact ok", last, got.Verdict, got.Exact)
		}
		if !testhist.PorcupineLinearizable(hist) {
			t.Errorf("last read of %s: Porcupine finds no linearization", last)
		}
	}
}
