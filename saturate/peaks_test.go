package saturate

import (
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/z"
)

// TestPeaksExact: MaxVars and MaxClauses are brought up to date lazily,
// before whatever lowers the counts they are peaks of (notePeaks). Random
// additions, removals, forgettings (some with unit clauses) and
// collections are run, the peaks are followed after every operation from
// the counts themselves, and Stats, which would note them, is asked only
// now and then: a place that lowers a count without noting the peak first
// loses it.
func TestPeaksExact(t *testing.T) {
	lowered := 0
	for seed := range uint64(2000) {
		rng := rand.New(rand.NewPCG(seed, 3))
		s := New()
		s.sweepMin = rng.IntN(6)
		var live []z.Var
		for range 3 + rng.IntN(6) {
			live = append(live, s.NewVar())
		}
		var ids []ClauseID
		maxVars, maxClauses := s.stats.Vars, s.used+s.nunits
		for step := range 80 {
			switch r := rng.IntN(12); {
			case r < 6 && len(live) > 0:
				c := randomClause(rng, live)
				if rng.IntN(4) == 0 {
					c = c[:min(len(c), 1)] // units, which are not stored
				}
				ids = append(ids, s.AddClause(c...))
			case r < 8 && len(ids) > 0:
				s.RemoveClause(ids[rng.IntN(len(ids))])
			case r < 9 && len(live) > 1:
				k := rng.IntN(len(live))
				vs := []z.Var{live[k]}
				live = append(live[:k], live[k+1:]...)
				if len(live) > 1 && rng.IntN(2) == 0 {
					k = rng.IntN(len(live))
					vs = append(vs, live[k], live[k]) // a repetition too
					live = append(live[:k], live[k+1:]...)
				}
				if err := s.ForgetVars(vs); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			case r < 11:
				live = append(live, s.NewVar())
			default:
				s.Propagate()
			}
			v, c := s.stats.Vars, s.used+s.nunits
			if v < maxVars || c < maxClauses {
				lowered++
			}
			maxVars, maxClauses = max(maxVars, v), max(maxClauses, c)
			if rng.IntN(16) == 0 || step == 79 {
				if st := s.Stats(); st.MaxVars != maxVars || st.MaxClauses != maxClauses {
					t.Fatalf("seed %d step %d: MaxVars %d MaxClauses %d, want %d and %d", seed, step, st.MaxVars, st.MaxClauses, maxVars, maxClauses)
				}
			}
		}
	}
	if lowered == 0 {
		t.Fatal("no count was ever lowered; the test tests nothing")
	}
}
