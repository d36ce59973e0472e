package encode

import (
	"fmt"
	"math/rand/v2"
	"testing"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
)

// TestRetVarsAgreeWithMap checks retVars against a map on operations that
// see from none to hundreds of values (past retIndexAt, where look-ups
// move to the index), with the lists and indexes recycled between
// operations as Remove does.
func TestRetVarsAgreeWithMap(t *testing.T) {
	t.Parallel()
	var tab opTable
	rng := rand.New(rand.NewPCG(1, 2))
	next := z.Var(1)
	for round := range 300 {
		var r retVars
		ref := map[h.Value]Lit{}
		n := rng.IntN(4)
		if round%5 == 0 {
			n = rng.IntN(300)
		}
		for i := 0; i < 4*n+4; i++ {
			v := h.Value(fmt.Sprint(rng.IntN(2*n + 2)))
			l, ok := r.get(v)
			if rl, rok := ref[v]; ok != rok || l != rl {
				t.Fatalf("round %d: get(%q) = %v, %v; want %v, %v", round, v, l, ok, rl, rok)
			}
			if !ok && rng.IntN(2) == 0 {
				l := next.Pos()
				next++
				r.add(&tab, v, l)
				ref[v] = l
			}
			if r.len() != len(ref) {
				t.Fatalf("round %d: len %d, want %d", round, r.len(), len(ref))
			}
		}
		seen := map[h.Value]Lit{}
		for _, w := range r.vs {
			if _, dup := seen[w.v]; dup {
				t.Fatalf("round %d: %q listed twice", round, w.v)
			}
			seen[w.v] = w.l
		}
		if fmt.Sprint(seen) != fmt.Sprint(ref) {
			t.Fatalf("round %d: list %v, want %v", round, seen, ref)
		}
		if (r.idx != nil) != (len(ref) >= retIndexAt) {
			t.Fatalf("round %d: %d values, index %v", round, len(ref), r.idx != nil)
		}
		tab.putRets(&r)
		if r.len() != 0 || r.idx != nil {
			t.Fatalf("round %d: putRets left %d values", round, r.len())
		}
	}
}
