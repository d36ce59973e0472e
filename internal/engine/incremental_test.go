package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/testhist"

	"github.com/satmon/satmon/encode"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/sat"
	"github.com/satmon/satmon/internal/z"
)

// At every return action, the live incremental solver (closed instances
// kept, open ones under an activation literal) answers exactly as a
// from-scratch encoding of the prefix: the incremental encoding is
// equisatisfiable with the batch one at every step, not only at the first
// violation.
func TestIncrementalEquisatisfiable(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	n := scale(1500)
	steps := 0
	for i := 0; i < n; i++ {
		obj := h.Objects[i%len(h.Objects)]
		hist := testhist.RandomHistory(rng, obj, 8)
		k := mustKernel(t, hist)
		live, _ := sat.New("gini")
		enc := encode.New(k, live, encode.Config{})
		enc.Begin()
		acts := Actions(hist)
		idx := map[int]int{}
		for j := range hist.Ops {
			idx[hist.Ops[j].Call] = j
			if !hist.Ops[j].Pending() {
				idx[hist.Ops[j].Return] = j
			}
		}
		for step, a := range acts {
			j := idx[a.Seq]
			o := &hist.Ops[j]
			if a.Kind == h.Call {
				enc.CallOp(o, encode.SerialOf(j))
				continue
			}
			enc.ReturnOp(o, encode.SerialOf(j))
			act := live.NewVar()
			enc.EmitOpen(act.Pos())
			inc := live.Solve(nil, act.Pos())
			live.AddClause([]z.Lit{act.Neg()})

			scratch, _ := sat.New("gini")
			encodeWhole(k, hist.Prefix(a.Seq+1), scratch)
			batch := scratch.Solve(nil)
			if inc != batch {
				t.Fatalf("history %d, step %d: incremental says %d, from scratch %d\n%v", i, step+1, inc, batch, hist)
			}
			steps++
		}
	}
	t.Logf("%d histories, %d return steps compared", n, steps)
}
