package saturate

import (
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/z"
)

// randomClause returns a clause of 0 to 4 literals over vars, with
// duplicates and tautologies now and then.
func randomClause(rng *rand.Rand, vars []z.Var) []z.Lit {
	n := rng.IntN(4) + 1
	if rng.IntN(40) == 0 {
		n = 0
	}
	c := make([]z.Lit, n)
	for i := range c {
		c[i] = vars[rng.IntN(len(vars))].Lit(rng.IntN(2) == 0)
	}
	return c
}

// TestDifferential adds random clauses in random order, propagating now
// and then, and compares the result with the naive reference propagator.
func TestDifferential(t *testing.T) {
	for seed := range uint64(3000) {
		rng := rand.New(rand.NewPCG(seed, 1))
		s := New()
		vars := newVars(s, 2+rng.IntN(12))
		var clauses [][]z.Lit
		for range rng.IntN(3 * len(vars)) {
			c := randomClause(rng, vars)
			clauses = append(clauses, c)
			s.AddClause(c...)
			if rng.IntN(4) == 0 {
				s.Propagate()
				if err := s.check(s.qhead == 0); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
		}
		ok := s.Propagate()
		want, conflict := refPropagate(vars[len(vars)-1], clauses, nil)
		if ok == conflict {
			t.Fatalf("seed %d: engine ok=%v, reference conflict=%v\nclauses %v", seed, ok, conflict, clauses)
		}
		if conflict {
			checkExplanation(t, s, seed)
			continue
		}
		for _, v := range vars {
			if got := s.Value(v.Pos()); got != want[v.Pos()] {
				t.Fatalf("seed %d: var %d = %v, reference %v\nclauses %v", seed, v, got, want[v.Pos()], clauses)
			}
		}
		if err := s.check(true); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

// checkExplanation checks that the explanation refutes itself: unit
// propagation on its clauses and facts alone reaches a conflict, and when
// small enough, no assignment satisfies them.
func checkExplanation(t *testing.T, s *Solver, seed uint64) {
	t.Helper()
	e := s.Explain()
	if len(e) == 0 || e[0].Clause != s.Conflict().Clause {
		t.Fatalf("seed %d: explanation %v does not start with conflict %v", seed, e, s.Conflict())
	}
	clauses := reasonClauses(e)
	var maxVar z.Var
	vars := map[z.Var]bool{}
	for _, r := range e {
		if r.IsFact() && len(r.Lits) != 1 {
			t.Fatalf("seed %d: fact %v is not one literal", seed, r.Lits)
		}
		for _, l := range r.Lits {
			maxVar = max(maxVar, l.Var())
			vars[l.Var()] = true
		}
	}
	if _, conflict := refPropagate(maxVar, clauses, nil); !conflict {
		t.Fatalf("seed %d: explanation %v does not propagate to a conflict", seed, e)
	}
	if len(vars) <= 16 && !bruteUnsat(clauses) {
		t.Fatalf("seed %d: explanation %v is satisfiable", seed, e)
	}
}

// TestRandomForget interleaves additions with RemoveClause, ForgetVars and
// recycling. The engine's variables are mapped to "logical" variables that
// are never reused, to compare with the reference in two ways:
//   - soundness: everything the engine assigns, and any conflict, follows
//     from all clauses ever added;
//   - completeness: at each fixpoint, the reference run on the live
//     clauses with the engine's assignments as facts derives nothing new,
//     and finds a conflict exactly when the engine has one.
func TestRandomForget(t *testing.T) {
	renumbered := 0
	defer func() {
		t.Logf("renumbered %d", renumbered)
		if renumbered == 0 && !t.Failed() {
			t.Errorf("no run renumbered its epochs")
		}
	}()
	for seed := range uint64(2000) {
		rng := rand.New(rand.NewPCG(seed, 2))
		s := New()
		s.sweepMin = rng.IntN(4)
		if seed%4 == 0 {
			// Start a few forgettings short of the renumbering of
			// epochs, so that collections renumber them mid-run.
			s.epoch = renormalizeAt - 3
		}
		logical := map[z.Var]z.Var{} // engine var → logical var
		nlogical := z.Var(0)
		var live []z.Var
		fresh := func() {
			v := s.NewVar()
			nlogical++
			logical[v] = nlogical
			live = append(live, v)
		}
		for range 3 + rng.IntN(6) {
			fresh()
		}
		toLogical := func(c []z.Lit) []z.Lit {
			out := make([]z.Lit, len(c))
			for i, l := range c {
				out[i] = logical[l.Var()].Lit(!l.IsNeg())
			}
			return out
		}
		var all [][]z.Lit             // every clause ever added, over logical vars
		ids := map[ClauseID][]z.Lit{} // live clauses, over engine vars
		var order []ClauseID

		for step := range 60 {
			switch r := rng.IntN(10); {
			case r < 6 && len(live) > 0:
				c := randomClause(rng, live)
				if len(c) == 0 && rng.IntN(3) > 0 {
					continue // keep empty clauses rare
				}
				id := s.AddClause(c...)
				if _, dup := ids[id]; dup {
					t.Fatalf("seed %d: handle %v issued twice", seed, id)
				}
				ids[id] = c
				order = append(order, id)
				all = append(all, toLogical(c))
			case r < 7 && len(order) > 0:
				i := rng.IntN(len(order))
				id := order[i]
				_, isLive := ids[id]
				if s.RemoveClause(id) != isLive {
					t.Fatalf("seed %d: RemoveClause(%v) disagrees with liveness %v", seed, id, isLive)
				}
				delete(ids, id)
			case r < 8 && len(live) > 1:
				k := rng.IntN(len(live))
				gone := live[k]
				live = append(live[:k], live[k+1:]...)
				if err := s.ForgetVars([]z.Var{gone}); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				for id, c := range ids {
					for _, l := range c {
						if l.Var() == gone {
							delete(ids, id)
							break
						}
					}
				}
				if s.Value(gone.Pos()) != Unknown {
					t.Fatalf("seed %d: forgotten var %d still assigned", seed, gone)
				}
			case r < 9:
				fresh()
			default:
				s.Propagate()
			}
			if s.Stats().Clauses != len(ids) || s.Stats().Vars != len(live) {
				t.Fatalf("seed %d step %d: stats %+v, want %d clauses %d vars", seed, step, s.Stats(), len(ids), len(live))
			}
			if err := s.check(s.qhead == len(s.queue)); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
		}
		if seed%4 == 0 && s.epoch < renormalizeAt-3 {
			renumbered++
		}
		ok := s.Propagate()
		if err := s.check(true); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}

		// Soundness against everything ever added.
		implied, conflict := refPropagate(nlogical, all, nil)
		if !ok && !conflict {
			t.Fatalf("seed %d: engine conflict %v that the clauses do not imply", seed, s.Explain())
		}
		if !ok {
			checkExplanation(t, s, seed)
			continue
		}
		var facts []z.Lit
		for _, v := range live {
			if x := s.Value(v.Pos()); x != Unknown {
				l := v.Lit(x == True)
				facts = append(facts, l)
				if !conflict && implied[toLogical([]z.Lit{l})[0]] != True {
					t.Fatalf("seed %d: engine assigns %v, not implied by the clauses", seed, l)
				}
			}
		}

		// Completeness on the live clauses plus retained facts.
		var liveClauses [][]z.Lit
		for _, c := range ids {
			liveClauses = append(liveClauses, c)
		}
		var maxVar z.Var
		for _, v := range live {
			maxVar = max(maxVar, v)
		}
		closure, refConflict := refPropagate(maxVar, liveClauses, facts)
		if refConflict {
			t.Fatalf("seed %d: reference finds a conflict the engine missed", seed)
		}
		for _, v := range live {
			if closure[v.Pos()] != s.Value(v.Pos()) {
				t.Fatalf("seed %d: var %d = %v, reference %v", seed, v, s.Value(v.Pos()), closure[v.Pos()])
			}
		}
	}
}
