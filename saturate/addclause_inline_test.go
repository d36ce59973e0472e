package saturate

import (
	"testing"

	"github.com/satmon/satmon/internal/z"
)

// TestAddClauseCheckedInline: AddClause's inline check of the usual
// clause still sends a clause with a variable that is not live (at any
// position, also a forgotten one) to normalize, which panics, and one
// with a repeated variable to normalize, which drops the repeat or sees
// the tautology.
func TestAddClauseCheckedInline(t *testing.T) {
	mustPanic := func(name string, add func(s *Solver, a, b z.Var)) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: AddClause did not panic", name)
			}
		}()
		s := New()
		a, b := s.NewVar(), s.NewVar()
		add(s, a, b)
	}
	mustPanic("unknown last", func(s *Solver, a, b z.Var) { s.AddClause(a.Pos(), b.Neg(), z.Var(9).Pos()) })
	mustPanic("zero middle", func(s *Solver, a, b z.Var) { s.AddClause(a.Pos(), 1, b.Neg()) })
	mustPanic("forgotten", func(s *Solver, a, b z.Var) {
		if err := s.ForgetVars([]z.Var{b}); err != nil {
			t.Fatal(err)
		}
		s.AddClause(a.Pos(), b.Neg())
	})
	s := New()
	a, b := s.NewVar(), s.NewVar()
	s.AddClause(a.Pos(), b.Pos(), a.Pos()) // a ∨ b once
	s.AddClause(b.Neg())
	if !s.Propagate() || s.Value(a.Pos()) != True {
		t.Fatalf("a = %v, want true", s.Value(a.Pos()))
	}
	s.AddClause(b.Pos(), b.Neg()) // a tautology: no effect
	if !s.Propagate() || s.Value(b.Neg()) != True {
		t.Fatalf("tautology changed b")
	}
}
