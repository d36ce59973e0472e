// Package sat puts the SAT backends, gini and gophersat, behind one small
// interface with internal/z's literals and solving under assumptions.
package sat

import (
	"fmt"
	"time"

	"github.com/crillab/gophersat/solver"
	"github.com/go-air/gini"
	gz "github.com/go-air/gini/z"

	"github.com/satmon/satmon/internal/z"
)

// Answer of a Solve call.
const (
	Sat     = 1
	Unsat   = -1
	Unknown = 0 // stopped before an answer
)

// Solver is an incremental SAT solver over z's literals.
type Solver interface {
	NewVar() z.Var
	// AddClause must not keep lits.
	AddClause(lits []z.Lit)
	// Solve decides the clauses under the assumed literals, giving up with
	// Unknown soon after stop returns true (stop may be nil: no limit).
	// stop is polled every few milliseconds while the search runs, not
	// before it starts: a quick solve never waits for a poll.
	Solve(stop func() bool, assumptions ...z.Lit) int
}

// slice is how long a search runs between two polls of stop.
const slice = 5 * time.Millisecond

// maxSlice bounds how long a long search runs between two polls of stop,
// and so how late it notices a time limit or a cancellation.
const maxSlice = 500 * time.Millisecond

// forever is the slice of a search that nothing can stop: Try with a
// deadline beyond any run, so that the search is never cut.
const forever = time.Duration(1 << 62)

// New returns a backend by name: "gini" or "gophersat".
func New(name string) (Solver, error) {
	switch name {
	case "", "gini":
		return newGini(), nil
	case "gophersat":
		return &gopherSolver{}, nil
	}
	return nil, fmt.Errorf("unknown SAT solver %q (want gini or gophersat)", name)
}

// giniSolver keeps one live gini instance: clauses persist across calls,
// which is what SYMBOLIC -i relies on.
//
// gini v1.0.4 loses level-0 conflicts when a clause added between solves
// is unit under its level-0 assignment (it assigns the unit without
// checking it against the clauses already there, then dies with "internal
// error in solve: sat model"; seen with both unit and binary clauses in
// TestExactVariantsAgree). Every clause therefore carries ¬guard, and
// every solve assumes guard: no added clause is ever unit at level 0, and
// the unit propagation happens under the assumption, where gini is right.
type giniSolver struct {
	g     *gini.Gini
	guard gz.Lit
	buf   []z.Lit
}

func newGini() *giniSolver {
	g := gini.New()
	return &giniSolver{g: g, guard: g.Lit()}
}

// NewVar asks gini itself for the variable, so that gini knows every
// variable that may be assumed.
func (s *giniSolver) NewVar() z.Var { return z.Var(s.g.Lit().Var()) }

// AddClause hands the literals to gini as they are: z's encoding is
// gini's.
func (s *giniSolver) AddClause(lits []z.Lit) {
	lits, taut := Normalize(append(s.buf[:0], lits...))
	if taut {
		return
	}
	for _, l := range lits {
		s.g.Add(gz.Lit(l))
	}
	s.g.Add(s.guard.Not())
	s.g.Add(gz.LitNull)
}

// Solve runs gini in slices when stop is given: Try stops the search after
// a slice (gini checks its deadline every few thousand propagations) and
// the next slice resumes with the clauses learnt so far, assumptions given
// again, until an answer or stop. A search that answers within its first
// slice costs exactly one Try, without goroutines or polling. Without stop
// the search runs in one piece.
func (s *giniSolver) Solve(stop func() bool, assumptions ...z.Lit) int {
	d := slice
	for {
		s.g.Assume(s.guard)
		for _, l := range assumptions {
			s.g.Assume(gz.Lit(l))
		}
		// Always Try, never Solve: Try leaves its deadline set, and a later
		// Solve would stop at it at once.
		if stop == nil {
			d = forever
		}
		if r := s.g.Try(d); r != Unknown {
			return r
		}
		if stop != nil && stop() {
			return Unknown
		}
		// Each Try starts gini's search afresh: its restart schedule (Luby)
		// and phases are reset, and only the learnt clauses carry over. With
		// slices of a fixed length, a search that needs longer restart
		// intervals than one slice never gets them, and may never answer.
		// Doubling the slice gives every search the time it needs within a
		// factor of two; the cap keeps stop polled at least every maxSlice.
		d = min(2*d, maxSlice)
	}
}

// gopherSolver collects the clauses and solves them from scratch with
// gophersat at each call, assumptions added as unit clauses. gophersat
// reads DIMACS integers: clauses are converted as they are added.
type gopherSolver struct {
	nvars   int
	clauses [][]int
	empty   bool
}

func (s *gopherSolver) NewVar() z.Var { s.nvars++; return z.Var(s.nvars) }

func (s *gopherSolver) AddClause(lits []z.Lit) {
	if len(lits) == 0 {
		s.empty = true
		return
	}
	cl := make([]int, len(lits))
	for i, l := range lits {
		cl[i] = l.Dimacs()
	}
	s.clauses = append(s.clauses, cl)
}

// gopherTurn is held by the one gophersat search running in the process:
// gophersat v1.4.0's searches share a package-level buffer (bufLits in
// its learn.go), and two at once corrupt each other (seen as an index out
// of range in computeLbd).
var gopherTurn = make(chan struct{}, 1)

// Solve runs gophersat's search in a goroutine and polls stop while it
// runs, and while it waits for its turn. gophersat v1.4.0 has no way to
// interrupt Solve (its stop channels only act between models), so on
// stop the search is abandoned: the call returns Unknown at once, and the
// goroutine runs to its end in the background, its answer dropped; it
// keeps the turn until then, so later gophersat solves in the process wait
// for it (stopping when their own stop says so). gini has none of this.
func (s *gopherSolver) Solve(stop func() bool, assumptions ...z.Lit) int {
	if s.empty {
		return Unsat
	}
	tick := time.NewTicker(slice)
	defer tick.Stop()
	if !wait(gopherTurn, tick.C, stop) {
		return Unknown
	}
	handed := false // the goroutine releases the turn
	defer func() {
		if !handed {
			<-gopherTurn
		}
	}()
	cls := make([][]int, 0, len(s.clauses)+len(assumptions)+1)
	cls = append(cls, s.clauses...)
	for _, a := range assumptions {
		cls = append(cls, []int{a.Dimacs()})
	}
	if len(cls) == 0 {
		return Sat
	}
	pb := solver.ParseSliceNb(cls, s.nvars)
	if pb.Status == solver.Unsat {
		return Unsat
	}
	if pb.Status == solver.Sat {
		return Sat
	}
	sv := solver.New(pb)
	if stop == nil {
		return status(sv.Solve())
	}
	done := make(chan solver.Status, 1)
	handed = true
	go func() {
		defer func() { <-gopherTurn }()
		done <- sv.Solve()
	}()
	for {
		select {
		case st := <-done:
			return status(st)
		case <-tick.C:
			if stop() {
				return Unknown
			}
		}
	}
}

// wait takes a turn, polling stop (nil: never) at each tick; false if
// stop said so first.
func wait(turn chan struct{}, tick <-chan time.Time, stop func() bool) bool {
	for {
		select {
		case turn <- struct{}{}:
			return true
		case <-tick:
			if stop != nil && stop() {
				return false
			}
		}
	}
}

// Normalize drops repeated literals from a clause (in place) and reports
// whether it is a tautology.
func Normalize(lits []z.Lit) ([]z.Lit, bool) {
	out := lits[:0]
	for _, l := range lits {
		dup := false
		for _, m := range out {
			if m == l {
				dup = true
				break
			}
			if m == l.Not() {
				return nil, true
			}
		}
		if !dup {
			out = append(out, l)
		}
	}
	return out, false
}

func status(st solver.Status) int {
	switch st {
	case solver.Sat:
		return Sat
	case solver.Unsat:
		return Unsat
	}
	return Unknown
}
