package saturate

import (
	"fmt"
	"slices"
)

// clauseState says what a clause slot currently holds.
type clauseState uint8

const (
	// slotFree: on the free list, ready for AddClause.
	slotFree clauseState = iota
	// clauseLive: added and not removed.
	clauseLive
	// clauseDead: removed, but watch and occurrence lists may still name
	// the slot (they are cleaned lazily), so it must not be reused until
	// the next sweep.
	clauseDead
)

// clause is one clause slot. For a clause that implied a literal, that
// literal is lits[0]; for a clause that is being watched, its two watched
// literals are lits[0] and lits[1].
type clause struct {
	lits  []Lit
	gen   uint32
	state clauseState
}

// watcher is an entry in a literal's watch list: the clause watches that
// literal. blocker is another literal of the clause; if it is true the
// clause is satisfied and need not be looked at.
type watcher struct {
	clause  int32
	blocker Lit
}

// isFact in reasonOf marks an assignment whose implying clause is gone (or
// that is not assigned at all): it is simply a fact.
const isFact int32 = -1

// sweepMin is the least number of removed clauses worth a sweep of the
// watch and occurrence lists; below it the stale entries cost less than
// the sweep. Tests lower Solver.sweepMin to sweep often.
const sweepMin = 1024

// Solver is a single-level unit-propagation engine. It is not safe for
// concurrent use.
type Solver struct {
	// Per literal (indexed by Lit).
	value    []Value     // truth value of the literal
	watching [][]watcher // clauses watching the literal; visited when it becomes false

	// Per variable (indexed by Var; index 0 is unused).
	reasonOf []int32   // slot of the clause that implied the variable, or isFact
	live     []bool    // allocated and not forgotten
	occurs   [][]int32 // slots of clauses mentioning the variable; may hold removed ones
	freeVars []Var     // forgotten variables, reused by NewVar

	clauses   []clause
	freeSlots []int32 // slots ready for reuse
	removed   []int32 // dead slots still named by some list; freed by sweep

	// queue holds assigned literals whose consequences have not been
	// propagated yet; queue[:qhead] are done. Because nothing is ever
	// undone there is no need to keep a trail beyond this queue.
	queue []Lit
	qhead int

	conflict    *Conflict
	explanation []Reason

	stats    Stats
	scratch  []Lit
	sweepMin int

	// observed collects every literal assigned since the last
	// TakeAssigned, when observing is on.
	observing bool
	observed  []Lit
	taken     []Lit // returned by the last TakeAssigned
}

// Stats are counters describing a Solver.
type Stats struct {
	Vars         int   // live variables
	Clauses      int   // live clauses
	MaxVars      int   // peak of Vars
	MaxClauses   int   // peak of Clauses
	Propagations int64 // literals whose watch lists were processed
	Conflicts    int64 // conflicts found (at most 1, as conflicts are sticky)
}

// New returns an empty Solver.
func New() *Solver {
	return &Solver{
		value:    make([]Value, 2),
		watching: make([][]watcher, 2),
		reasonOf: []int32{isFact},
		live:     []bool{false},
		occurs:   make([][]int32, 1),
		sweepMin: sweepMin,
	}
}

// NewVar returns an unassigned variable, reusing a forgotten one if any.
func (s *Solver) NewVar() Var {
	var v Var
	if n := len(s.freeVars); n > 0 {
		v = s.freeVars[n-1]
		s.freeVars = s.freeVars[:n-1]
	} else {
		v = Var(len(s.live))
		s.value = append(s.value, Unknown, Unknown)
		s.watching = append(s.watching, nil, nil)
		s.reasonOf = append(s.reasonOf, isFact)
		s.live = append(s.live, false)
		s.occurs = append(s.occurs, nil)
	}
	s.live[v] = true
	s.stats.Vars++
	s.stats.MaxVars = max(s.stats.MaxVars, s.stats.Vars)
	return v
}

// IsLive reports whether v was returned by NewVar and not forgotten since.
func (s *Solver) IsLive(v Var) bool {
	return v > 0 && int(v) < len(s.live) && s.live[v]
}

// Value returns the value of l. Literals of forgotten or never-allocated
// variables are Unknown.
func (s *Solver) Value(l Lit) Value {
	if l < 0 || int(l) >= len(s.value) {
		return Unknown
	}
	return s.value[l]
}

// Stats returns the solver's counters.
func (s *Solver) Stats() Stats { return s.stats }

// AddClause adds the disjunction of lits and returns its handle. Every
// literal must belong to a live variable; AddClause panics otherwise,
// because such a clause would silently talk about a recycled variable.
//
// Duplicate literals are dropped and the rest may be reordered. The clause
// takes effect at once against the current assignment:
//   - if some literal is true, or the clause is a tautology, it is stored
//     but never watched: nothing is ever unassigned while the clause lives,
//     so it stays satisfied;
//   - if exactly one literal is not false (this includes unit clauses),
//     that literal is assigned immediately, and its consequences are
//     derived by the next Propagate;
//   - if every literal is false (this includes the empty clause), the
//     solver is in conflict from now on;
//   - otherwise two of its literals are watched.
//
// Every clause gets a handle and counts as live until removed, and every
// clause is removed by ForgetVars of one of its variables. After a
// conflict, clauses are stored but no longer take effect.
func (s *Solver) AddClause(lits ...Lit) ClauseID {
	lits, tautology := s.normalize(lits)
	slot := s.allocSlot()
	c := &s.clauses[slot]
	c.lits = append(c.lits[:0], lits...)
	for _, l := range lits {
		v := l.Var()
		s.occurs[v] = append(s.occurs[v], slot)
	}
	s.stats.Clauses++
	s.stats.MaxClauses = max(s.stats.MaxClauses, s.stats.Clauses)
	id := makeClauseID(slot, c.gen)
	if s.conflict == nil && !tautology {
		s.attach(slot)
	}
	return id
}

// normalize copies lits into s.scratch without duplicates, and reports
// whether they contain a literal and its negation. Short clauses, the
// usual case, keep the caller's order.
func (s *Solver) normalize(lits []Lit) (out []Lit, tautology bool) {
	buf := append(s.scratch[:0], lits...)
	s.scratch = buf
	for _, l := range buf {
		if !s.IsLive(l.Var()) {
			panic(fmt.Sprintf("saturate: AddClause: literal %v of a variable that is not live", l))
		}
	}
	if len(buf) > 16 {
		// Sorting puts duplicates, and also v next to ¬v, side by side.
		slices.Sort(buf)
		n := 0
		for _, l := range buf {
			if n > 0 && l == buf[n-1] {
				continue
			}
			tautology = tautology || n > 0 && l == buf[n-1].Not()
			buf[n] = l
			n++
		}
		return buf[:n], tautology
	}
	n := 0
next:
	for _, l := range buf {
		for _, m := range buf[:n] {
			if m == l {
				continue next
			}
			tautology = tautology || m == l.Not()
		}
		buf[n] = l
		n++
	}
	return buf[:n], tautology
}

func (s *Solver) allocSlot() int32 {
	var slot int32
	if n := len(s.freeSlots); n > 0 {
		slot = s.freeSlots[n-1]
		s.freeSlots = s.freeSlots[:n-1]
		c := &s.clauses[slot]
		c.gen++
		if c.gen == 0 { // wrapped: 0 would make a zero ClauseID possible
			c.gen = 1
		}
	} else {
		slot = int32(len(s.clauses))
		s.clauses = append(s.clauses, clause{gen: 1})
	}
	s.clauses[slot].state = clauseLive
	return slot
}

// attach makes a freshly added clause act on the current assignment.
func (s *Solver) attach(slot int32) {
	lits := s.clauses[slot].lits
	open := 0 // lits[:open] are the unassigned literals
	for i, l := range lits {
		switch s.value[l] {
		case True:
			return
		case Unknown:
			lits[open], lits[i] = lits[i], lits[open]
			open++
		}
	}
	switch open {
	case 0:
		s.setConflict(slot)
	case 1:
		s.assign(lits[0], slot)
	default:
		s.watch(lits[0], slot, lits[1])
		s.watch(lits[1], slot, lits[0])
	}
}

func (s *Solver) watch(l Lit, slot int32, blocker Lit) {
	s.watching[l] = append(s.watching[l], watcher{clause: slot, blocker: blocker})
}

// assign makes l true because of the clause in slot reason (or isFact) and
// queues it for propagation. l must be unassigned.
func (s *Solver) assign(l Lit, reason int32) {
	s.value[l] = True
	s.value[l.Not()] = False
	s.reasonOf[l.Var()] = reason
	s.queue = append(s.queue, l)
	if s.observing {
		s.observed = append(s.observed, l)
	}
}

// Observe turns on the record of assignments that TakeAssigned returns.
// A caller that generates clauses lazily (a theory propagator) needs to
// see each new fact once, whether it came from a unit clause or from
// propagation.
func (s *Solver) Observe() { s.observing = true }

// TakeAssigned returns the literals assigned since the last call, in
// assignment order, skipping those whose variable has been forgotten
// since, and starts a new record. The slice is reused by the next call.
func (s *Solver) TakeAssigned() []Lit {
	out := s.taken[:0]
	for _, l := range s.observed {
		if s.value[l] == True {
			out = append(out, l)
		}
	}
	s.observed = s.observed[:0]
	s.taken = out
	return out
}
