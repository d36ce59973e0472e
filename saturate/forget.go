package saturate

import (
	"fmt"
	"slices"

	"github.com/satmon/satmon/internal/z"
)

// RemoveClause removes the clause named by id and reports whether it was
// live. Assignments the clause implied stay; they become facts. Removing a
// clause never undoes a conflict. Stale or zero handles are ignored.
func (s *Solver) RemoveClause(id ClauseID) bool {
	if id == NoClause {
		return false
	}
	if v := id.unitVar(); v != 0 {
		if int(v) >= len(s.vs) || !s.vs[v].live || s.vs[v].gen != id.gen() || s.vs[v].units == 0 {
			return false
		}
		s.vs[v].units = 0
		s.notePeaks()
		s.nunits--
		if s.vs[v].reason == isUnit {
			s.vs[v].reason = isFact
		}
		// A new unit clause on v must not get the handle just removed.
		s.bumpGen(v)
		return true
	}
	slot := id.slot()
	if int(slot) >= len(s.clauses) {
		return false
	}
	c := &s.clauses[slot]
	if c.state != clauseLive || c.gen != id.gen() || !s.alive(c) {
		return false
	}
	lits := s.lits(slot)
	for _, l := range lits {
		if v := l.Var(); s.vs[v].reason == slot {
			s.vs[v].reason = isFact
		}
	}
	s.stored--
	if len(lits) == 2 {
		// A binary clause's only references are its two watchers: drop
		// them, and the slot is free at once.
		for i, l := range lits {
			s.unwatch(l, ^slot, lits[1-i])
		}
		c.state = slotFree
		s.freeSlots = append(s.freeSlots, slot)
		s.notePeaks()
		s.used--
		return true
	}
	c.state = clauseRemoved
	s.maybeCollect()
	return true
}

// unwatch drops the watcher of l that names ref with the given other
// literal, if l still has it (propagation may have dropped it).
func (s *Solver) unwatch(l z.Lit, ref int32, other z.Lit) {
	ws := s.watching[l]
	for i, w := range ws {
		if w.ref == ref && w.other == other {
			s.watching[l] = append(ws[:i], ws[i+1:]...)
			return
		}
	}
}

// ForgetVar forgets v: its value is dropped and NewVar may hand out its
// index again. It fails, changing nothing, if v is not live or a live
// clause mentions it; ForgetVars removes such clauses first. Finding such
// a clause takes a pass over all clauses: ForgetVars is the operation
// meant for use.
func (s *Solver) ForgetVar(v z.Var) error {
	if !s.IsLive(v) {
		return fmt.Errorf("saturate: ForgetVar(%d): not a live variable", v)
	}
	if s.vs[v].units > 0 {
		return fmt.Errorf("saturate: ForgetVar(%d): a live unit clause mentions it", v)
	}
	for slot := range s.clauses {
		c := &s.clauses[slot]
		if c.state != clauseLive || !s.alive(c) {
			continue
		}
		for _, l := range s.lits(int32(slot)) {
			if l.Var() == v {
				return fmt.Errorf("saturate: ForgetVar(%d): live clause %v mentions it", v, s.lits(int32(slot)))
			}
		}
	}
	_ = s.dropVars([]z.Var{v}) // v is live: it cannot fail
	s.epoch++
	s.stale = true
	return nil
}

// ForgetVars removes every live clause that mentions one of vs, then
// forgets vs as ForgetVar does. Assignments of other variables stay, as
// facts where their implying clause was removed. It fails, changing
// nothing, if some v in vs is not live; duplicates are fine.
//
// No clause is visited: each v records the current epoch, and a clause
// added in that epoch or before that mentions v is dead from now on. Dead
// clauses are dropped when propagation meets them and by collections.
func (s *Solver) ForgetVars(vs []z.Var) error {
	if err := s.dropVars(vs); err != nil {
		return err
	}
	s.epoch++
	s.stale = true
	s.maybeCollect()
	return nil
}

// dropVars forgets each of vs (vs may repeat one) in the current epoch,
// with its unit clauses, or fails, changing nothing, if one of them is
// not live. Its own watch lists are simply emptied (keeping small ones
// for the variable's next life): every clause in them mentions it and is
// dead. A queued literal of it is skipped by Propagate, as it is now
// unassigned. ForgetVars runs it for every variable the encoder forgets.
//
// The check that vs are live is the first loop, which takes them out of
// the living and lists them: a variable found not live is a repetition
// if it is listed already (a search made only then, by takeRest: the
// encoder never repeats one), and otherwise the ones listed are made live
// again, which is all the first loop changed. A pass of its own to check
// them cost as much as the first loop. The rest is two more loops, with
// the tables in locals: one loop kept more of them than there are
// registers, and reloaded them at every variable.
func (s *Solver) dropVars(vs []z.Var) error {
	vst := s.vs
	// The free list gets room for all of vs first and is written by
	// index: appending reloaded and stored its header at every variable.
	free := slices.Grow(s.freeVars, len(vs))
	had := len(free)
	free = free[:had+len(vs)]
	// The usual case first: each of vs live, and listed once. This loop
	// makes no call, so that it keeps its values in registers; the first
	// v that is not live (a repetition, or an error) hands the rest to
	// takeRest.
	take := free[had:][:len(vs)]
	i := 0
	for ; i < len(vs); i++ {
		v := vs[i]
		if v == 0 || int(v) >= len(vst) || !vst[v].live {
			break
		}
		vst[v].live = false
		take[i] = v
	}
	n := had + i
	if i < len(vs) {
		var err error
		if n, err = s.takeRest(vs[i:], free, had, n); err != nil {
			return err
		}
	}
	dropped := free[had:n]
	units := 0
	for _, v := range dropped {
		st := &vst[v]
		units += int(st.units)
		*st = varState{reason: isFact, gen: nextGen(st.gen)}
	}
	value, forgotAt, watching, epoch := s.value, s.forgotAt, s.watching, s.epoch
	for _, v := range dropped {
		// v's literals are p and p+1, adjacent: each table is cut to
		// their two entries once, with one bounds check.
		p := int(v.Pos())
		vals := value[p : p+2 : p+2]
		vals[0], vals[1] = Unknown, Unknown
		forgotAt[v] = epoch
		// Keep small lists for reuse; drop big ones, or every recycled
		// index would keep the largest list it ever had and memory would
		// creep up with the length of the log.
		ws := watching[p : p+2 : p+2]
		shrinkList(&ws[0])
		shrinkList(&ws[1])
	}
	s.freeVars = free[:n]
	s.notePeaks()
	s.nunits -= units
	s.stats.Vars -= n - had
	return nil
}

// takeRest is dropVars's first loop from a v that is not live on:
// free[had:n] lists the variables taken so far. It returns the new n, or
// fails, having made the ones taken live again.
//
//go:noinline
func (s *Solver) takeRest(vs []z.Var, free []z.Var, had, n int) (int, error) {
	vst := s.vs
	for _, v := range vs {
		if v == 0 || int(v) >= len(vst) {
			return n, s.notLive(v, free[had:n])
		}
		st := &vst[v]
		if !st.live {
			if slices.Contains(free[had:n], v) {
				continue
			}
			return n, s.notLive(v, free[had:n])
		}
		st.live = false
		free[n] = v
		n++
	}
	return n, nil
}

// notLive undoes what dropVars's first loop did to the variables it
// listed, taken, and reports that v is not a live variable.
//
//go:noinline
func (s *Solver) notLive(v z.Var, taken []z.Var) error {
	for _, t := range taken {
		s.vs[t].live = true
	}
	return fmt.Errorf("saturate: ForgetVars: %d is not a live variable", v)
}

// bumpGen gives v's unit clauses a new handle.
func (s *Solver) bumpGen(v z.Var) { s.vs[v].gen = nextGen(s.vs[v].gen) }

// nextGen is the generation after g: 0 is skipped when it wraps, as it
// would make a zero ClauseID possible.
func nextGen(g uint32) uint32 {
	if g++; g == 0 {
		g = 1
	}
	return g
}

// maybeCollect collects once the clause table holds twice as many clauses
// as were alive after the last collection (and at least sweepMin), so
// that the collection's cost, linear in the table, the arena and the watch
// lists, is paid for by the additions since, and storage stays within a
// constant factor of the live clauses.
func (s *Solver) maybeCollect() {
	if s.used >= max(s.sweepMin, 2*s.liveAtCollect) {
		s.collect()
	}
}

// collect frees the slots of removed and dead clauses, compacts the
// arena, drops every watcher of a freed clause (and of a satisfied one),
// and turns into facts the assignments whose reason was freed.
func (s *Solver) collect() {
	// The live literals fit in the arena's length, and the free slots in
	// the table's: room for them is made once, not by appending.
	to := s.spare[:0]
	if cap(to) < len(s.arena) {
		to = make([]z.Lit, 0, cap(s.arena))
	}
	s.freeSlots = grow2(s.freeSlots, len(s.clauses)-len(s.freeSlots))
	live := 0
	for slot := range s.clauses {
		c := &s.clauses[slot]
		if c.state == slotFree {
			continue
		}
		if c.state == clauseLive && s.alive(c) {
			start := int32(len(to))
			to = append(to, s.arena[c.start:c.start+c.size]...)
			c.start = start
			live++
			continue
		}
		c.state = slotFree
		s.freeSlots = append(s.freeSlots, int32(slot))
	}
	s.arena, s.spare = to, s.arena[:0]
	// Every watcher names a slot that was not free before this
	// collection, so one naming a free slot now names a freed clause.
	for v := 1; v < len(s.vs); v++ {
		if !s.vs[v].live {
			continue
		}
		if r := s.vs[v].reason; r >= 0 && s.clauses[r].state == slotFree {
			s.vs[v].reason = isFact
		}
		for _, l := range [2]z.Lit{z.Var(v).Pos(), z.Var(v).Neg()} {
			ws := s.watching[l][:0]
			for _, w := range s.watching[l] {
				slot := w.ref
				if slot < 0 {
					slot = ^slot
				}
				if s.clauses[slot].state == clauseLive && s.value[w.other] != True {
					ws = append(ws, w)
				}
			}
			s.watching[l] = ws
		}
	}
	s.notePeaks()
	s.used, s.stored, s.stale = live, live, false
	s.liveAtCollect = live
	if s.epoch >= renormalizeAt {
		s.renormalize()
	}
}

// renormalize renumbers epochs from 1 right after a collection, when every
// stored clause is alive: births become 1 and forgetting epochs 0, which
// keeps every stored clause alive and every comparison to come correct.
func (s *Solver) renormalize() {
	for slot := range s.clauses {
		s.clauses[slot].birth = 1
	}
	for l := range s.watching {
		for i := range s.watching[l] {
			s.watching[l][i].birth = 1
		}
	}
	clear(s.forgotAt)
	s.epoch = 2
}

// keepCap is the largest list capacity a recycled variable keeps.
const keepCap = 16

// shrinkList empties the watch list *ws, keeping its storage if it is
// small. An empty list is left as it is: most are, and rewriting the
// slice costs a write barrier check.
func shrinkList(ws *[]watcher) {
	switch {
	case cap(*ws) > keepCap:
		*ws = nil
	case len(*ws) > 0:
		*ws = (*ws)[:0]
	}
}
