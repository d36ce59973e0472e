package saturate

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/satmon/satmon/internal/z"
)

// TakeAssigned returns its record without looking at its literals when no
// variable was forgotten since the last call: on random runs of making,
// adding, forgetting (and reusing forgotten variables), propagating and
// taking, every call returns exactly the literals of its record that are
// still true, in order, and each of them is of a live variable.
func TestTakeAssignedSkipsOnlyWithoutForgetting(t *testing.T) {
	fast, slow := 0, 0
	for seed := range uint64(3000) {
		rng := rand.New(rand.NewPCG(seed, 9))
		s := New()
		s.Observe()
		var live []z.Var
		for range 2 + rng.IntN(5) {
			live = append(live, s.NewVar())
		}
		for range 80 {
			switch r := rng.IntN(12); {
			case r < 5 && len(live) > 0:
				c := make([]z.Lit, 1+rng.IntN(3))
				for i := range c {
					c[i] = live[rng.IntN(len(live))].Lit(rng.IntN(2) == 0)
				}
				s.AddClause(c...)
			case r < 7 && len(live) > 1:
				var gone []z.Var
				for range 1 + rng.IntN(min(3, len(live)-1)) {
					k := rng.IntN(len(live))
					gone = append(gone, live[k])
					live = append(live[:k], live[k+1:]...)
				}
				if err := s.ForgetVars(gone); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			case r < 8:
				live = append(live, s.NewVar())
			case r < 10:
				s.Propagate()
			default:
				var want []z.Lit
				for _, l := range s.observed {
					if s.value[l] == True {
						want = append(want, l)
					}
				}
				if s.reused+len(s.freeVars) == s.takenAt {
					fast++
				} else {
					slow++
				}
				got := s.TakeAssigned()
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d: TakeAssigned = %v, want %v", seed, got, want)
				}
				for _, l := range got {
					if !s.IsLive(l.Var()) || s.Value(l) != True {
						t.Fatalf("seed %d: TakeAssigned returned %v, not a true literal of a live variable", seed, l)
					}
				}
				if len(s.observed) != 0 {
					t.Fatalf("seed %d: the record is not empty after TakeAssigned", seed)
				}
			}
		}
	}
	if fast == 0 || slow == 0 {
		t.Fatalf("fast %d, slow %d: both paths must be taken", fast, slow)
	}
}
