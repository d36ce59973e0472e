package saturate

import (
	"slices"
	"testing"
)

func newVars(s *Solver, n int) []Var {
	vs := make([]Var, n)
	for i := range vs {
		vs[i] = s.NewVar()
	}
	return vs
}

func mustCheck(t *testing.T, s *Solver, fixpoint bool) {
	t.Helper()
	if err := s.check(fixpoint); err != nil {
		t.Fatal(err)
	}
}

func TestLit(t *testing.T) {
	v := Var(7)
	p, n := Pos(v), Neg(v)
	if p.Var() != v || n.Var() != v {
		t.Fatalf("Var of %v/%v = %d/%d, want %d", p, n, p.Var(), n.Var(), v)
	}
	if p.IsNeg() || !n.IsNeg() {
		t.Fatalf("IsNeg wrong: %v %v", p.IsNeg(), n.IsNeg())
	}
	if p.Not() != n || n.Not() != p {
		t.Fatalf("Not wrong")
	}
	if p.String() != "7" || n.String() != "-7" {
		t.Fatalf("String = %q %q", p, n)
	}
	if MkLit(v, true) != p || MkLit(v, false) != n {
		t.Fatalf("MkLit wrong")
	}
	if FromDimacs(7) != p || FromDimacs(-7) != n || p.Dimacs() != 7 || n.Dimacs() != -7 {
		t.Fatalf("DIMACS conversion wrong: %v %v %d %d", FromDimacs(7), FromDimacs(-7), p.Dimacs(), n.Dimacs())
	}
	if True.String() != "true" || False.String() != "false" || Unknown.String() != "unknown" {
		t.Fatalf("Value strings wrong")
	}
}

func TestChain(t *testing.T) {
	s := New()
	vs := newVars(s, 100)
	// Added backwards, so the chain is only derived by propagation.
	for i := len(vs) - 1; i > 0; i-- {
		s.AddClause(Neg(vs[i-1]), Pos(vs[i]))
	}
	mustCheck(t, s, true)
	s.AddClause(Pos(vs[0]))
	if s.Value(Pos(vs[0])) != True {
		t.Fatalf("unit not assigned at once")
	}
	if s.Value(Pos(vs[1])) != Unknown {
		t.Fatalf("consequence assigned before Propagate")
	}
	if !s.Propagate() {
		t.Fatalf("unexpected conflict")
	}
	for _, v := range vs {
		if s.Value(Pos(v)) != True || s.Value(Neg(v)) != False {
			t.Fatalf("var %d = %v, want true", v, s.Value(Pos(v)))
		}
	}
	if got := s.Stats().Propagations; got != int64(len(vs)) {
		t.Errorf("Propagations = %d, want %d", got, len(vs))
	}
	mustCheck(t, s, true)
}

func TestAddClauseCases(t *testing.T) {
	t.Run("empty", func(t *testing.T) {
		s := New()
		id := s.AddClause()
		if s.Propagate() || s.Conflict() == nil || s.Conflict().Clause != id {
			t.Fatalf("empty clause: no conflict (%v)", s.Conflict())
		}
		if e := s.Explain(); len(e) != 1 || e[0].Clause != id || len(e[0].Lits) != 0 {
			t.Fatalf("Explain = %v", e)
		}
	})
	t.Run("unit-false", func(t *testing.T) {
		s := New()
		a := s.NewVar()
		u := s.AddClause(Pos(a))
		id := s.AddClause(Neg(a))
		if s.Conflict() == nil || s.Conflict().Clause != id {
			t.Fatalf("contradicting unit: conflict %v, want clause %v", s.Conflict(), id)
		}
		if s.Propagate() {
			t.Fatalf("Propagate ok after conflict")
		}
		e := s.Explain()
		if len(e) != 2 || e[0].Clause != id || e[1].Clause != u {
			t.Fatalf("Explain = %v", e)
		}
	})
	t.Run("tautology", func(t *testing.T) {
		s := New()
		a, b := s.NewVar(), s.NewVar()
		id := s.AddClause(Pos(a), Neg(b), Neg(a))
		s.AddClause(Pos(b))
		if !s.Propagate() || s.Value(Pos(a)) != Unknown {
			t.Fatalf("tautology propagated: a = %v", s.Value(Pos(a)))
		}
		if s.Stats().Clauses != 2 {
			t.Fatalf("Clauses = %d, want 2", s.Stats().Clauses)
		}
		if !s.RemoveClause(id) || s.RemoveClause(id) {
			t.Fatalf("tautology not removable exactly once")
		}
		mustCheck(t, s, true)
	})
	t.Run("duplicates", func(t *testing.T) {
		s := New()
		a, b := s.NewVar(), s.NewVar()
		s.AddClause(Pos(a), Pos(a), Neg(b), Pos(a))
		s.AddClause(Pos(b), Pos(b))
		if s.Value(Pos(b)) != True {
			t.Fatalf("duplicated unit not assigned")
		}
		if !s.Propagate() || s.Value(Pos(a)) != True {
			t.Fatalf("a = %v, want true", s.Value(Pos(a)))
		}
		mustCheck(t, s, true)
	})
	t.Run("satisfied", func(t *testing.T) {
		s := New()
		a, b, c := s.NewVar(), s.NewVar(), s.NewVar()
		s.AddClause(Pos(a))
		s.Propagate()
		id := s.AddClause(Pos(a), Pos(b), Pos(c))
		if id == NoClause || s.Stats().Clauses != 2 {
			t.Fatalf("satisfied clause: id %v, %d clauses", id, s.Stats().Clauses)
		}
		s.AddClause(Neg(b))
		s.AddClause(Neg(c))
		if !s.Propagate() {
			t.Fatalf("satisfied clause caused a conflict")
		}
		if !s.RemoveClause(id) || s.Stats().Clauses != 3 {
			t.Fatalf("satisfied clause not removable")
		}
		mustCheck(t, s, true)
	})
	t.Run("one-open", func(t *testing.T) {
		s := New()
		a, b, c := s.NewVar(), s.NewVar(), s.NewVar()
		s.AddClause(Neg(a))
		s.AddClause(Neg(b))
		if !s.Propagate() {
			t.Fatal("conflict")
		}
		s.AddClause(Pos(a), Pos(c), Pos(b))
		if s.Value(Pos(c)) != True {
			t.Fatalf("clause with one open literal did not assign it at once: %v", s.Value(Pos(c)))
		}
		mustCheck(t, s, false)
	})
	t.Run("one-open-pending", func(t *testing.T) {
		// a is false but not yet propagated when the clause arrives.
		s := New()
		a, b := s.NewVar(), s.NewVar()
		s.AddClause(Neg(a))
		s.AddClause(Pos(a), Pos(b))
		if s.Value(Pos(b)) != True || !s.Propagate() {
			t.Fatalf("b = %v", s.Value(Pos(b)))
		}
		mustCheck(t, s, true)
	})
	t.Run("all-false", func(t *testing.T) {
		s := New()
		a, b := s.NewVar(), s.NewVar()
		s.AddClause(Neg(a))
		s.AddClause(Neg(b))
		s.Propagate()
		id := s.AddClause(Pos(b), Pos(a))
		if s.Conflict() == nil || s.Conflict().Clause != id || s.Propagate() {
			t.Fatalf("all-false clause: conflict %v", s.Conflict())
		}
		if !bruteUnsat(reasonClauses(s.Explain())) {
			t.Fatalf("explanation %v is satisfiable", s.Explain())
		}
	})
	t.Run("after-conflict", func(t *testing.T) {
		s := New()
		a, b := s.NewVar(), s.NewVar()
		s.AddClause()
		s.AddClause(Pos(a))
		s.AddClause(Neg(a), Pos(b))
		if s.Propagate() || s.Stats().Conflicts != 1 || s.Stats().Clauses != 3 {
			t.Fatalf("conflict not sticky: %+v", s.Stats())
		}
		mustCheck(t, s, false)
	})
}

func TestAddClauseBadLiteral(t *testing.T) {
	for _, l := range []Lit{0, 1, -4, Pos(5)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("AddClause(%d) did not panic", l)
				}
			}()
			s := New()
			s.NewVar()
			s.AddClause(l)
		}()
	}
}

func TestValueOutOfRange(t *testing.T) {
	s := New()
	for _, l := range []Lit{-1, 0, 1, 2, 1000} {
		if s.Value(l) != Unknown {
			t.Errorf("Value(%d) = %v", l, s.Value(l))
		}
	}
}

func TestIncremental(t *testing.T) {
	s := New()
	a, b, c, d := s.NewVar(), s.NewVar(), s.NewVar(), s.NewVar()
	s.AddClause(Neg(a), Pos(b), Pos(c)) // a → b ∨ c
	s.AddClause(Pos(a))
	if !s.Propagate() || s.Value(Pos(b)) != Unknown {
		t.Fatalf("b = %v, want unknown", s.Value(Pos(b)))
	}
	s.AddClause(Neg(c))
	if !s.Propagate() || s.Value(Pos(b)) != True {
		t.Fatalf("b = %v, want true", s.Value(Pos(b)))
	}
	s.AddClause(Neg(b), Pos(d)) // b is already true: d at once
	if s.Value(Pos(d)) != True {
		t.Fatalf("d = %v, want true", s.Value(Pos(d)))
	}
	e := s.NewVar()
	s.AddClause(Neg(d), Neg(e))
	s.AddClause(Pos(e), Neg(a))
	if s.Propagate() {
		t.Fatalf("no conflict")
	}
	clauses := reasonClauses(s.Explain())
	if !bruteUnsat(clauses) {
		t.Fatalf("explanation %v is satisfiable", s.Explain())
	}
	if _, conflict := refPropagate(e, clauses, nil); !conflict {
		t.Fatalf("explanation %v does not propagate to a conflict", s.Explain())
	}
}

// reasonClauses turns an explanation into plain clauses, facts as units.
func reasonClauses(rs []Reason) [][]Lit {
	var out [][]Lit
	for _, r := range rs {
		out = append(out, slices.Clone(r.Lits))
	}
	return out
}

func TestLongClause(t *testing.T) {
	s := New()
	vs := newVars(s, 40)
	var lits []Lit
	for i := len(vs) - 1; i >= 0; i-- { // every literal twice, out of order
		lits = append(lits, Pos(vs[i]), Pos(vs[(i*7)%len(vs)]))
	}
	id := s.AddClause(lits...)
	for _, v := range vs[1:] {
		s.AddClause(Neg(v))
	}
	if !s.Propagate() || s.Value(Pos(vs[0])) != True {
		t.Fatalf("long clause did not propagate: %v", s.Value(Pos(vs[0])))
	}
	if got := len(s.lits(id.slot())); got != len(vs) {
		t.Fatalf("long clause kept %d literals, want %d", got, len(vs))
	}
	taut := s.AddClause(append(lits, Neg(vs[3]))...)
	for _, ws := range s.watching {
		for _, w := range ws {
			if w.ref == taut.slot() || w.ref == ^taut.slot() {
				t.Fatalf("long tautology is watched")
			}
		}
	}
	if s.Stats().Clauses != len(vs)+1 {
		t.Fatalf("long tautology not stored")
	}
	if !s.RemoveClause(taut) {
		t.Fatalf("long tautology not removable")
	}
	mustCheck(t, s, true)
}

// TakeAssigned reports each assignment once, in order, whether it came
// from a unit clause or from propagation, and drops forgotten variables.
func TestTakeAssigned(t *testing.T) {
	s := New()
	s.Observe()
	a, b, c := s.NewVar(), s.NewVar(), s.NewVar()
	s.AddClause(Neg(a), Pos(b)) // a → b
	s.AddClause(Neg(b), Neg(c)) // b → ¬c
	s.AddClause(Pos(a))
	if !s.Propagate() {
		t.Fatal("unexpected conflict")
	}
	got := s.TakeAssigned()
	want := []Lit{Pos(a), Pos(b), Neg(c)}
	if !slices.Equal(got, want) {
		t.Fatalf("TakeAssigned = %v, want %v", got, want)
	}
	if got := s.TakeAssigned(); len(got) != 0 {
		t.Fatalf("second TakeAssigned = %v, want nothing new", got)
	}
	d := s.NewVar()
	s.AddClause(Pos(d))
	if err := s.ForgetVars([]Var{d}); err != nil {
		t.Fatal(err)
	}
	if got := s.TakeAssigned(); len(got) != 0 {
		t.Fatalf("TakeAssigned = %v after forgetting the only new variable, want nothing", got)
	}
}
