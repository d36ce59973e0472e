package saturate

import (
	"reflect"
	"slices"
	"testing"

	"github.com/satmon/satmon/internal/z"
)

func TestFactsOutliveReasons(t *testing.T) {
	s := New()
	a, b, c := s.NewVar(), s.NewVar(), s.NewVar()
	unit := s.AddClause(a.Pos())
	ab := s.AddClause(a.Neg(), b.Pos())
	if !s.Propagate() || s.Value(b.Pos()) != True {
		t.Fatalf("b = %v", s.Value(b.Pos()))
	}
	if !s.RemoveClause(ab) || !s.RemoveClause(unit) {
		t.Fatalf("RemoveClause failed")
	}
	if s.RemoveClause(ab) {
		t.Fatalf("clause removed twice")
	}
	if s.Value(a.Pos()) != True || s.Value(b.Pos()) != True {
		t.Fatalf("facts lost: a = %v, b = %v", s.Value(a.Pos()), s.Value(b.Pos()))
	}
	mustCheck(t, s, true)
	// Forgetting a keeps b; a conflict on b is then explained by a fact.
	if err := s.ForgetVars([]z.Var{a}); err != nil {
		t.Fatal(err)
	}
	if s.Value(b.Pos()) != True {
		t.Fatalf("b = %v after forgetting a", s.Value(b.Pos()))
	}
	bc := s.AddClause(b.Neg(), c.Pos())
	last := s.AddClause(c.Neg())
	if s.Propagate() {
		t.Fatalf("no conflict")
	}
	e := s.Explain()
	if len(e) != 3 || e[0].Clause != last || e[1].Clause != bc || !e[2].IsFact() || e[2].Lits[0] != b.Pos() {
		t.Fatalf("Explain = %+v, want [%v %v fact b]", e, last, bc)
	}
}

func TestRemovedClauseDoesNotPropagate(t *testing.T) {
	s := New()
	a, b, c := s.NewVar(), s.NewVar(), s.NewVar()
	ab := s.AddClause(a.Neg(), b.Pos())
	s.AddClause(a.Neg(), c.Pos())
	s.RemoveClause(ab)
	s.AddClause(a.Pos())
	if !s.Propagate() {
		t.Fatal("conflict")
	}
	if s.Value(b.Pos()) != Unknown || s.Value(c.Pos()) != True {
		t.Fatalf("b = %v (want unknown), c = %v (want true)", s.Value(b.Pos()), s.Value(c.Pos()))
	}
	mustCheck(t, s, true)
}

func TestForgetVar(t *testing.T) {
	s := New()
	a, b := s.NewVar(), s.NewVar()
	id := s.AddClause(a.Neg(), b.Pos())
	s.AddClause(a.Pos())
	s.Propagate()
	if err := s.ForgetVar(a); err == nil {
		t.Fatalf("ForgetVar of a var in a live clause succeeded")
	}
	if !s.IsLive(a) || s.Value(a.Pos()) != True {
		t.Fatalf("failed ForgetVar changed a")
	}
	if err := s.ForgetVars([]z.Var{a, 99}); err == nil || !s.IsLive(a) {
		t.Fatalf("ForgetVars with a bad var: err %v, a live %v", err, s.IsLive(a))
	}
	s.RemoveClause(id)
	if s.ForgetVar(a) == nil { // the unit clause (a) is still live
		t.Fatalf("ForgetVar succeeded with unit clause live")
	}
	if err := s.ForgetVars([]z.Var{a, a}); err != nil {
		t.Fatal(err)
	}
	if s.ForgetVar(a) == nil {
		t.Fatalf("ForgetVar of a forgotten var succeeded")
	}
	if st := s.Stats(); st.Vars != 1 || st.Clauses != 0 || st.MaxVars != 2 || st.MaxClauses != 2 {
		t.Fatalf("Stats = %+v", st)
	}
	mustCheck(t, s, true)
	// The index comes back unassigned and unwatched.
	r := s.NewVar()
	if r != a {
		t.Fatalf("NewVar = %d, want recycled %d", r, a)
	}
	if s.Value(r.Pos()) != Unknown || len(s.watching[r.Pos()])+len(s.watching[r.Neg()]) != 0 {
		t.Fatalf("recycled var not clean")
	}
	if s.Value(b.Pos()) != True {
		t.Fatalf("b lost")
	}
	s.AddClause(r.Pos(), b.Neg()) // b is true: r at once
	if s.Value(r.Pos()) != True || !s.Propagate() {
		t.Fatalf("recycled var not usable")
	}
	mustCheck(t, s, true)
}

func TestForgetPendingLiteral(t *testing.T) {
	// A literal queued but not yet propagated when its var is forgotten
	// must not act on the recycled var.
	s := New()
	a, b := s.NewVar(), s.NewVar()
	s.AddClause(a.Pos())
	if err := s.ForgetVars([]z.Var{a}); err != nil {
		t.Fatal(err)
	}
	r := s.NewVar()
	s.AddClause(r.Pos(), b.Pos()) // would become unit on b if old "a" were propagated
	if !s.Propagate() || s.Value(b.Pos()) != Unknown {
		t.Fatalf("stale queue entry acted: b = %v", s.Value(b.Pos()))
	}
	mustCheck(t, s, true)
}

func TestStaleClauseID(t *testing.T) {
	s := New()
	vs := newVars(s, 3)
	var old []ClauseID
	for i := 0; i < 2*sweepMin; i++ {
		old = append(old, s.AddClause(vs[0].Pos(), vs[1].Pos(), vs[2].Pos()))
	}
	for _, id := range old {
		s.RemoveClause(id)
	}
	if len(s.freeSlots) == 0 {
		t.Fatalf("no sweep after %d removals", len(old))
	}
	fresh := s.AddClause(vs[0].Neg(), vs[1].Neg())
	if fresh.slot() >= int32(len(old)) {
		t.Fatalf("slot not reused")
	}
	for _, id := range old {
		if s.RemoveClause(id) {
			t.Fatalf("stale id %x removed a clause", id)
		}
	}
	if s.Stats().Clauses != 1 || !s.RemoveClause(fresh) {
		t.Fatalf("fresh clause lost")
	}
	// Nothing left of the old clauses may make a clause reusing their
	// slots act on vs[2].
	for range 2 * sweepMin {
		s.RemoveClause(s.AddClause(vs[0].Neg(), vs[2].Pos(), vs[1].Pos()))
	}
	s.AddClause(vs[0].Neg(), vs[1].Pos())
	s.AddClause(vs[1].Neg())
	if !s.Propagate() || s.Value(vs[2].Pos()) != Unknown || s.Value(vs[0].Pos()) != False {
		t.Fatalf("stale watchers acted: %v %v", s.Value(vs[0].Pos()), s.Value(vs[2].Pos()))
	}
	mustCheck(t, s, true)
}

// TestMemoryBounded runs a sliding window for many steps and checks that
// storage follows the live size, not the number of steps.
func TestMemoryBounded(t *testing.T) {
	w := newWindow(8, 1)
	maxLive := 0
	for range 3000 {
		w.step()
		maxLive = max(maxLive, w.s.Stats().Clauses)
	}
	s := w.s
	st := s.Stats()
	bound := 2*maxLive + sweepMin
	if len(s.vs)-1 > st.MaxVars || len(s.clauses) > bound {
		t.Fatalf("storage grew: %d var slots (max live %d), %d clause slots (max live %d)",
			len(s.vs)-1, st.MaxVars, len(s.clauses), maxLive)
	}
	if st.MaxClauses > bound+maxLive {
		t.Fatalf("%d clauses held at the peak for at most %d live", st.MaxClauses, maxLive)
	}
	watchers := 0
	for l := range s.watching {
		watchers += len(s.watching[l])
	}
	if watchers > 2*bound || len(s.arena) > 8*bound {
		t.Fatalf("lists grew: %d watchers, %d arena literals for at most %d live clauses", watchers, len(s.arena), maxLive)
	}
	if !s.Propagate() {
		t.Fatalf("consistent workload reported a conflict: %v", s.Explain())
	}
	mustCheck(t, s, true)
	if w.checkOrder() != nil {
		t.Fatal(w.checkOrder())
	}
}

// TestForgetVarsFailsChangingNothing: dropVars checks the variables while
// it takes them out of the living, so a failure has to undo that: a
// ForgetVars with a variable not live (forgotten, never made, or 0) after
// live ones, some repeated, must leave every variable's state, the free
// list and the counts as they were, and forgetting the live ones must
// still work afterwards.
func TestForgetVarsFailsChangingNothing(t *testing.T) {
	s := New()
	a, b, c, d := s.NewVar(), s.NewVar(), s.NewVar(), s.NewVar()
	s.AddClause(a.Neg(), b.Pos())
	s.AddClause(a.Pos())
	s.AddClause(c.Neg())
	s.Propagate()
	if err := s.ForgetVars([]z.Var{d}); err != nil {
		t.Fatal(err)
	}
	type snap struct {
		vs       []varState
		value    []Value
		free     []z.Var
		nunits   int
		st       Stats
		forgotAt []uint32
	}
	take := func() snap {
		return snap{slices.Clone(s.vs), slices.Clone(s.value), slices.Clone(s.freeVars), s.nunits, s.Stats(), slices.Clone(s.forgotAt)}
	}
	before := take()
	for _, bad := range [][]z.Var{
		{a, b, a, d},
		{c, a, c, 0},
		{b, c, a, 99},
		{d},
	} {
		if err := s.ForgetVars(bad); err == nil {
			t.Fatalf("ForgetVars(%v) succeeded", bad)
		}
		if after := take(); !reflect.DeepEqual(before, after) {
			t.Fatalf("failed ForgetVars(%v) changed the solver:\n%+v\n%+v", bad, before, after)
		}
	}
	if err := s.ForgetVars([]z.Var{a, b, a, c}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []z.Var{a, b, c, d} {
		if s.IsLive(v) {
			t.Fatalf("%d live after ForgetVars", v)
		}
	}
	if st := s.Stats(); st.Vars != 0 {
		t.Fatalf("Stats = %+v", st)
	}
}
