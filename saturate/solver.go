package saturate

import (
	"fmt"
	"slices"

	"github.com/satmon/satmon/internal/z"
)

// clauseState says what a clause-table slot currently holds.
type clauseState uint8

const (
	// slotFree: on the free list, ready for AddClause.
	slotFree clauseState = iota
	// clauseLive: added and not removed by RemoveClause. It is still dead
	// if one of its variables was forgotten after it was added (see alive).
	clauseLive
	// clauseRemoved: removed by RemoveClause, but watch lists may still
	// name the slot (they are cleaned lazily), so it must not be reused
	// until the next collection.
	clauseRemoved
)

// clause is one clause-table entry: a clause of two or more literals, or
// the empty clause. Its literals are arena[start:start+size]. For a longer
// clause that implied a literal, that literal is the first; for one being
// watched, its two watched literals are the first two. Unit clauses have no
// entry: they are facts (see Solver.units).
type clause struct {
	start int32
	size  int32
	birth uint32 // the epoch in which it was added
	gen   uint32
	state clauseState
}

// watcher is an entry in a literal's watch list: the clause watches that
// literal. A binary clause lives in its two watchers: other is its other
// literal, and propagation never reads the clause table or the arena for
// it. For a longer clause other is a blocker: another literal of the
// clause; if it is true the clause is satisfied and need not be looked at.
// ref is the clause's slot, complemented (negative) for a binary clause.
// birth is the clause's, so that a binary clause's liveness is decided
// from the watcher alone.
type watcher struct {
	other z.Lit
	ref   int32
	birth uint32
}

// varState is what the solver keeps of a variable besides its value,
// watch lists and forgetting epoch, in one record: forgetting and making
// a variable touch all of it, once per variable.
type varState struct {
	reason int32  // slot of the clause that implied the variable, isUnit or isFact
	gen    uint32 // bumped when the variable is forgotten; names unit-clause handles
	units  int32  // 1 if the variable carries an unstored live unit clause (see addUnit)
	live   bool   // allocated and not forgotten
}

// reason values that are not clause slots.
const (
	// isFact marks an assignment whose implying clause is gone (or that is
	// not assigned at all): it is simply a fact.
	isFact int32 = -1
	// isUnit marks an assignment made by a live unit clause.
	isUnit int32 = -2
)

// sweepMin is the least number of stored clauses worth a collection; below
// it the dead clauses cost less than the collection. Tests lower
// Solver.sweepMin to collect often.
const sweepMin = 1024

// renormalizeAt is the epoch at which a collection renumbers births and
// forgetting epochs from 1, long before the 32-bit epoch could wrap.
const renormalizeAt = 1 << 31

// Solver is a single-level unit-propagation engine. It is not safe for
// concurrent use.
type Solver struct {
	// Per literal (indexed by Lit).
	value    []Value     // truth value of the literal
	watching [][]watcher // clauses watching the literal; visited when it becomes false

	// Per variable (indexed by Var; index 0 is unused). forgotAt is
	// apart from the rest: propagation reads it for every literal of the
	// clauses it visits.
	vs       []varState
	forgotAt []uint32 // epoch in which the variable was last forgotten, 0 if never
	freeVars []z.Var  // forgotten variables, reused by NewVar

	// epoch counts forgettings (ForgetVar and ForgetVars calls), from 1.
	// A clause is dead once one of its variables has been forgotten in
	// or after the epoch of its birth: forgetting never visits clauses.
	epoch uint32

	clauses   []clause
	arena     []z.Lit // literals of the stored clauses
	spare     []z.Lit // the arena's other half: a collection copies into it
	freeSlots []int32 // slots ready for reuse
	used      int     // slots not free: live, removed or dead
	// liveAtCollect is the number of clauses alive after the last
	// collection; the next one comes when used reaches twice it.
	liveAtCollect int
	stored        int  // live stored clauses; recounted when stale
	stale         bool // a forgetting has happened since stored was counted
	nunits        int  // live unit clauses

	// queue holds assigned literals whose consequences have not been
	// propagated yet; queue[:qhead] are done. Because nothing is ever
	// undone there is no need to keep a trail beyond this queue.
	queue []z.Lit
	qhead int

	conflict    *Conflict
	explanation []Reason

	stats    Stats
	scratch  []z.Lit
	sweepMin int

	// observed collects every literal assigned since the last
	// TakeAssigned, when observing is on.
	observing bool
	observed  []z.Lit
	taken     []z.Lit // returned by the last TakeAssigned
	// reused counts the forgotten variables NewVar has taken back, so
	// that reused+len(freeVars) counts every variable ever forgotten;
	// takenAt is that count at the last TakeAssigned that looked at its
	// literals (see TakeAssigned).
	reused  int
	takenAt int
}

// Stats are counters describing a Solver.
type Stats struct {
	Vars    int // live variables
	Clauses int // live clauses
	MaxVars int // peak of Vars
	// MaxClauses is the peak of clauses held: live ones, and dead ones
	// not yet collected.
	MaxClauses   int
	Propagations int64 // literals whose watch lists were processed
	Conflicts    int64 // conflicts found (at most 1, as conflicts are sticky)
}

// New returns an empty Solver.
func New() *Solver {
	return &Solver{
		value:    make([]Value, 2),
		watching: make([][]watcher, 2),
		vs:       []varState{{reason: isFact}},
		forgotAt: []uint32{0},
		epoch:    1,
		sweepMin: sweepMin,
	}
}

// NewVar returns an unassigned variable, reusing a forgotten one if any.
func (s *Solver) NewVar() z.Var {
	var v z.Var
	if n := len(s.freeVars); n > 0 {
		v = s.freeVars[n-1]
		s.freeVars = s.freeVars[:n-1]
		s.reused++
		s.vs[v].live = true
	} else {
		v = z.Var(len(s.vs))
		if len(s.vs) == cap(s.vs) {
			s.growVars()
		}
		s.value = append(s.value, Unknown, Unknown)
		s.watching = append(s.watching, nil, nil)
		s.vs = append(s.vs, varState{reason: isFact, gen: 1, live: true})
		s.forgotAt = append(s.forgotAt, 0)
	}
	s.stats.Vars++ // MaxVars follows lazily (notePeaks)
	return v
}

// growVars doubles the room of the tables indexed by variable at once:
// appending to each grows it by a quarter at a time once it is large, and
// every new peak of the variables in use would allocate again.
func (s *Solver) growVars() {
	n := max(len(s.vs), 64)
	s.value = grow2(s.value, 2*n)
	s.watching = grow2(s.watching, 2*n)
	s.vs = grow2(s.vs, n)
	s.forgotAt = grow2(s.forgotAt, n)
	// The free list never holds more than the variables: room for all
	// of them now, so that dropVars, appending one by one, never grows
	// it (it grew a little at each new largest forgetting).
	if cap(s.freeVars) < cap(s.vs) {
		s.freeVars = slices.Grow(s.freeVars, cap(s.vs)-len(s.freeVars))
	}
}

// grow2 returns s with room for extra more elements, at least doubling
// its capacity when it has to grow, so that storage that follows the
// peak of the window is reallocated a number of times logarithmic in
// that peak.
func grow2[T any](s []T, extra int) []T {
	if len(s)+extra <= cap(s) {
		return s
	}
	return slices.Grow(s, max(extra, cap(s)))
}

// IsLive reports whether v was returned by NewVar and not forgotten since.
func (s *Solver) IsLive(v z.Var) bool {
	return v > 0 && int(v) < len(s.vs) && s.vs[v].live
}

// Value returns the value of l. Literals of forgotten or never-allocated
// variables are Unknown.
func (s *Solver) Value(l z.Lit) Value {
	if int(l) >= len(s.value) {
		return Unknown
	}
	return s.value[l]
}

// Assignment returns the solver's assignment as a table indexed by
// literal: (*a)[l] is l's value, and a literal beyond the table is
// Unknown. The pointer stays valid while the solver lives and always sees
// the current table, which grows as variables are made; it must not be
// written.
func (s *Solver) Assignment() *[]Value { return &s.value }

// Stats returns the solver's counters. After a forgetting, the count of
// live clauses is taken by a pass over the clause table, since forgetting
// itself does not visit the clauses it kills.
func (s *Solver) Stats() Stats {
	if s.stale {
		s.stored = 0
		for slot := range s.clauses {
			if c := &s.clauses[slot]; c.state == clauseLive && s.alive(c) {
				s.stored++
			}
		}
		s.stale = false
	}
	s.notePeaks()
	st := s.stats
	st.Clauses = s.stored + s.nunits
	return st
}

// notePeaks brings MaxVars and MaxClauses up to date. The counts they
// are peaks of (stats.Vars, used+nunits) only grow between the places
// that lower them, so a peak is always reached right before such a place:
// each of them calls notePeaks first, as does Stats, and adding a
// variable or a clause, much more frequent, need not look.
func (s *Solver) notePeaks() {
	s.stats.MaxVars = max(s.stats.MaxVars, s.stats.Vars)
	s.stats.MaxClauses = max(s.stats.MaxClauses, s.used+s.nunits)
}

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
// A unit clause is not stored: it is a fact about its variable, counted
// on the variable. A binary clause is stored for its handle and for
// explanations, but propagation reads it from its watchers only.
//
// Every clause gets a handle and counts as live until removed, and every
// clause is removed by ForgetVars of one of its variables. After a
// conflict, clauses are stored but no longer take effect.
func (s *Solver) AddClause(lits ...z.Lit) ClauseID {
	// The usual clause, checked here without a call: every variable
	// live, no variable twice; the caller's slice serves as it is (store
	// copies it into the arena). normalize checks again and says what is
	// wrong, or drops what repeats.
	// Units and binary clauses, most of those an encoder emits, are
	// checked first, without the loops.
	vs := s.vs
	switch len(lits) {
	case 1:
		if v := lits[0].Var(); uint(v) < uint(len(vs)) && vs[v].live {
			return s.addUnit(lits[0])
		}
	case 2:
		v, w := lits[0].Var(), lits[1].Var()
		if v != w && uint(v) < uint(len(vs)) && vs[v].live && uint(w) < uint(len(vs)) && vs[w].live {
			return s.store(lits, false)
		}
	}
	tautology := false
	if len(lits) > 16 || !s.allLive(lits) || !distinctVars(lits) {
		lits, tautology = s.normalize(lits)
	}
	if len(lits) == 1 {
		return s.addUnit(lits[0])
	}
	return s.store(lits, tautology)
}

// store adds a clause to the clause table and the arena.
func (s *Solver) store(lits []z.Lit, tautology bool) ClauseID {
	slot := s.allocSlot()
	c := &s.clauses[slot]
	c.start, c.size, c.birth = int32(len(s.arena)), int32(len(lits)), s.epoch
	s.arena = append(grow2(s.arena, len(lits)), lits...)
	s.stored++ // MaxClauses follows lazily (notePeaks)
	id := makeClauseID(slot, c.gen)
	if s.conflict == nil && !tautology {
		s.attach(slot)
	}
	return id
}

// addUnit adds the unit clause l. The first live unit clause of a
// variable is not stored: it is a mark on the variable and, if l is not
// assigned yet, an assignment whose reason is isUnit; its handle is the
// variable with its generation (see unitID). A second one while the first
// lives, which an encoder hardly ever emits, is stored like longer
// clauses (it is never watched: it is satisfied or false at once).
func (s *Solver) addUnit(l z.Lit) ClauseID {
	v := l.Var()
	vs := &s.vs[v]
	if vs.units > 0 {
		return s.store([]z.Lit{l}, false)
	}
	vs.units = 1
	s.nunits++ // MaxClauses follows lazily (notePeaks)
	id := unitID(v, vs.gen)
	if s.conflict == nil {
		switch s.value[l] {
		case Unknown:
			s.assign(l, isUnit)
		case False:
			s.setConflict(id, []z.Lit{l})
		}
	}
	return id
}

// allLive reports whether every literal of lits is of a live variable
// (IsLive, with one comparison: variable 0 is never live).
func (s *Solver) allLive(lits []z.Lit) bool {
	vs := s.vs
	for _, l := range lits {
		if v := l.Var(); uint(v) >= uint(len(vs)) || !vs[v].live {
			return false
		}
	}
	return true
}

// normalize copies lits into s.scratch without duplicates, and reports
// whether they contain a literal and its negation. Short clauses, the
// usual case, keep the caller's order.
func (s *Solver) normalize(lits []z.Lit) (out []z.Lit, tautology bool) {
	// IsLive, with one comparison: variable 0 is never live.
	vs := s.vs
	for _, l := range lits {
		if v := l.Var(); uint(v) >= uint(len(vs)) || !vs[v].live {
			panic(fmt.Sprintf("saturate: AddClause: literal %v of a variable that is not live", l))
		}
	}
	if len(lits) <= 16 && distinctVars(lits) {
		// The usual case: nothing to drop, and the caller's slice serves
		// as it is (store copies it into the arena).
		return lits, false
	}
	buf := append(s.scratch[:0], lits...)
	s.scratch = buf
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

// distinctVars reports whether no two of lits share a variable: no
// duplicate, no tautology.
func distinctVars(lits []z.Lit) bool {
	for i := 1; i < len(lits); i++ {
		v := lits[i].Var()
		for _, m := range lits[:i] {
			if m.Var() == v {
				return false
			}
		}
	}
	return true
}

func (s *Solver) allocSlot() int32 {
	s.used++
	if n := len(s.freeSlots); n > 0 {
		slot := s.freeSlots[n-1]
		s.freeSlots = s.freeSlots[:n-1]
		c := &s.clauses[slot]
		c.gen++
		if c.gen == 0 { // wrapped: 0 would make a zero ClauseID possible
			c.gen = 1
		}
		c.state = clauseLive
		return slot
	}
	slot := int32(len(s.clauses))
	s.clauses = append(grow2(s.clauses, 1), clause{gen: 1, state: clauseLive})
	return slot
}

// lits returns the literals of the clause in slot, in the arena: valid
// until the arena next grows or is collected.
func (s *Solver) lits(slot int32) []z.Lit {
	c := &s.clauses[slot]
	return s.arena[c.start : c.start+c.size : c.start+c.size]
}

// alive reports whether none of c's variables has been forgotten since c
// was added. (c's variables were live when it was added, so if alive they
// still are: the same variables, not recycled ones.)
func (s *Solver) alive(c *clause) bool {
	for _, l := range s.arena[c.start : c.start+c.size] {
		if s.forgotAt[l.Var()] >= c.birth {
			return false
		}
	}
	return true
}

// attach makes a freshly added clause act on the current assignment.
func (s *Solver) attach(slot int32) {
	lits := s.lits(slot)
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
		s.setConflict(makeClauseID(slot, s.clauses[slot].gen), lits)
	case 1:
		s.assign(lits[0], slot)
	default:
		ref, birth := slot, s.clauses[slot].birth
		if len(lits) == 2 {
			ref = ^slot
		}
		s.watch(lits[0], watcher{other: lits[1], ref: ref, birth: birth})
		s.watch(lits[1], watcher{other: lits[0], ref: ref, birth: birth})
	}
}

func (s *Solver) watch(l z.Lit, w watcher) {
	s.watching[l] = append(s.watching[l], w)
}

// assign makes l true because of the clause in slot reason (or isFact) and
// queues it for propagation. l must be unassigned.
func (s *Solver) assign(l z.Lit, reason int32) {
	s.value[l] = True
	s.value[l.Not()] = False
	s.vs[l.Var()].reason = reason
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
//
// Only forgetting unassigns, and every forgotten variable goes to the
// free list (dropVars), where only NewVar takes it from (counted in
// reused): when no variable was forgotten since the last call, every
// literal recorded is still true, and the record itself is returned
// without a look at its literals. Otherwise those of forgotten variables
// are dropped from it in place. The record and the slice returned last
// (which the caller is done with) swap their storage.
func (s *Solver) TakeAssigned() []z.Lit {
	out := s.observed
	if f := s.reused + len(s.freeVars); f != s.takenAt {
		s.takenAt = f
		n := 0
		for _, l := range out {
			if s.value[l] == True {
				out[n] = l
				n++
			}
		}
		out = out[:n]
	}
	s.observed = s.taken[:0]
	s.taken = out
	return out
}
