package saturate

import (
	"slices"
	"testing"

	"github.com/satmon/satmon/internal/z"
)

func newVars(s *Solver, n int) []z.Var {
	vs := make([]z.Var, n)
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

func TestValueString(t *testing.T) {
	if True.String() != "true" || False.String() != "false" || Unknown.String() != "unknown" {
		t.Fatalf("Value strings wrong")
	}
}

func TestChain(t *testing.T) {
	s := New()
	vs := newVars(s, 100)
	// Added backwards, so the chain is only derived by propagation.
	for i := len(vs) - 1; i > 0; i-- {
		s.AddClause(vs[i-1].Neg(), vs[i].Pos())
	}
	mustCheck(t, s, true)
	s.AddClause(vs[0].Pos())
	if s.Value(vs[0].Pos()) != True {
		t.Fatalf("unit not assigned at once")
	}
	if s.Value(vs[1].Pos()) != Unknown {
		t.Fatalf("consequence assigned before Propagate")
	}
	if !s.Propagate() {
		t.Fatalf("unexpected conflict")
	}
	for _, v := range vs {
		if s.Value(v.Pos()) != True || s.Value(v.Neg()) != False {
			t.Fatalf("var %d = %v, want true", v, s.Value(v.Pos()))
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
		u := s.AddClause(a.Pos())
		id := s.AddClause(a.Neg())
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
		id := s.AddClause(a.Pos(), b.Neg(), a.Neg())
		s.AddClause(b.Pos())
		if !s.Propagate() || s.Value(a.Pos()) != Unknown {
			t.Fatalf("tautology propagated: a = %v", s.Value(a.Pos()))
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
		s.AddClause(a.Pos(), a.Pos(), b.Neg(), a.Pos())
		s.AddClause(b.Pos(), b.Pos())
		if s.Value(b.Pos()) != True {
			t.Fatalf("duplicated unit not assigned")
		}
		if !s.Propagate() || s.Value(a.Pos()) != True {
			t.Fatalf("a = %v, want true", s.Value(a.Pos()))
		}
		mustCheck(t, s, true)
	})
	t.Run("satisfied", func(t *testing.T) {
		s := New()
		a, b, c := s.NewVar(), s.NewVar(), s.NewVar()
		s.AddClause(a.Pos())
		s.Propagate()
		id := s.AddClause(a.Pos(), b.Pos(), c.Pos())
		if id == NoClause || s.Stats().Clauses != 2 {
			t.Fatalf("satisfied clause: id %v, %d clauses", id, s.Stats().Clauses)
		}
		s.AddClause(b.Neg())
		s.AddClause(c.Neg())
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
		s.AddClause(a.Neg())
		s.AddClause(b.Neg())
		if !s.Propagate() {
			t.Fatal("conflict")
		}
		s.AddClause(a.Pos(), c.Pos(), b.Pos())
		if s.Value(c.Pos()) != True {
			t.Fatalf("clause with one open literal did not assign it at once: %v", s.Value(c.Pos()))
		}
		mustCheck(t, s, false)
	})
	t.Run("one-open-pending", func(t *testing.T) {
		// a is false but not yet propagated when the clause arrives.
		s := New()
		a, b := s.NewVar(), s.NewVar()
		s.AddClause(a.Neg())
		s.AddClause(a.Pos(), b.Pos())
		if s.Value(b.Pos()) != True || !s.Propagate() {
			t.Fatalf("b = %v", s.Value(b.Pos()))
		}
		mustCheck(t, s, true)
	})
	t.Run("all-false", func(t *testing.T) {
		s := New()
		a, b := s.NewVar(), s.NewVar()
		s.AddClause(a.Neg())
		s.AddClause(b.Neg())
		s.Propagate()
		id := s.AddClause(b.Pos(), a.Pos())
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
		s.AddClause(a.Pos())
		s.AddClause(a.Neg(), b.Pos())
		if s.Propagate() || s.Stats().Conflicts != 1 || s.Stats().Clauses != 3 {
			t.Fatalf("conflict not sticky: %+v", s.Stats())
		}
		mustCheck(t, s, false)
	})
}

func TestAddClauseBadLiteral(t *testing.T) {
	for _, l := range []z.Lit{0, 1, ^z.Lit(3), z.Var(5).Pos()} {
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
	for _, l := range []z.Lit{^z.Lit(0), 0, 1, 2, 1000} {
		if s.Value(l) != Unknown {
			t.Errorf("Value(%d) = %v", l, s.Value(l))
		}
	}
}

func TestIncremental(t *testing.T) {
	s := New()
	a, b, c, d := s.NewVar(), s.NewVar(), s.NewVar(), s.NewVar()
	s.AddClause(a.Neg(), b.Pos(), c.Pos()) // a → b ∨ c
	s.AddClause(a.Pos())
	if !s.Propagate() || s.Value(b.Pos()) != Unknown {
		t.Fatalf("b = %v, want unknown", s.Value(b.Pos()))
	}
	s.AddClause(c.Neg())
	if !s.Propagate() || s.Value(b.Pos()) != True {
		t.Fatalf("b = %v, want true", s.Value(b.Pos()))
	}
	s.AddClause(b.Neg(), d.Pos()) // b is already true: d at once
	if s.Value(d.Pos()) != True {
		t.Fatalf("d = %v, want true", s.Value(d.Pos()))
	}
	e := s.NewVar()
	s.AddClause(d.Neg(), e.Neg())
	s.AddClause(e.Pos(), a.Neg())
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
func reasonClauses(rs []Reason) [][]z.Lit {
	var out [][]z.Lit
	for _, r := range rs {
		out = append(out, slices.Clone(r.Lits))
	}
	return out
}

func TestLongClause(t *testing.T) {
	s := New()
	vs := newVars(s, 40)
	var lits []z.Lit
	for i := len(vs) - 1; i >= 0; i-- { // every literal twice, out of order
		lits = append(lits, vs[i].Pos(), vs[(i*7)%len(vs)].Pos())
	}
	id := s.AddClause(lits...)
	for _, v := range vs[1:] {
		s.AddClause(v.Neg())
	}
	if !s.Propagate() || s.Value(vs[0].Pos()) != True {
		t.Fatalf("long clause did not propagate: %v", s.Value(vs[0].Pos()))
	}
	if got := len(s.lits(id.slot())); got != len(vs) {
		t.Fatalf("long clause kept %d literals, want %d", got, len(vs))
	}
	taut := s.AddClause(append(lits, vs[3].Neg())...)
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
	s.AddClause(a.Neg(), b.Pos()) // a → b
	s.AddClause(b.Neg(), c.Neg()) // b → ¬c
	s.AddClause(a.Pos())
	if !s.Propagate() {
		t.Fatal("unexpected conflict")
	}
	got := s.TakeAssigned()
	want := []z.Lit{a.Pos(), b.Pos(), c.Neg()}
	if !slices.Equal(got, want) {
		t.Fatalf("TakeAssigned = %v, want %v", got, want)
	}
	if got := s.TakeAssigned(); len(got) != 0 {
		t.Fatalf("second TakeAssigned = %v, want nothing new", got)
	}
	d := s.NewVar()
	s.AddClause(d.Pos())
	if err := s.ForgetVars([]z.Var{d}); err != nil {
		t.Fatal(err)
	}
	if got := s.TakeAssigned(); len(got) != 0 {
		t.Fatalf("TakeAssigned = %v after forgetting the only new variable, want nothing", got)
	}
}
