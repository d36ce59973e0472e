package saturate

import "fmt"

// RemoveClause removes the clause named by id and reports whether it was
// live. Assignments the clause implied stay; they become facts. Removing a
// clause never undoes a conflict. Stale or zero handles are ignored.
func (s *Solver) RemoveClause(id ClauseID) bool {
	slot := id.slot()
	if id == NoClause || slot < 0 || int(slot) >= len(s.clauses) {
		return false
	}
	c := &s.clauses[slot]
	if c.state != clauseLive || c.gen != id.gen() {
		return false
	}
	s.removeSlot(slot)
	s.maybeSweep()
	return true
}

// removeSlot kills a live clause. Its watchers and occurrences are left in
// place to be dropped when met or at the next sweep; only then can the
// slot be reused, since until then they still name it.
func (s *Solver) removeSlot(slot int32) {
	c := &s.clauses[slot]
	c.state = clauseDead
	if len(c.lits) > 0 {
		if v := c.lits[0].Var(); s.reasonOf[v] == slot {
			s.reasonOf[v] = isFact
		}
	}
	s.stats.Clauses--
	s.removed = append(s.removed, slot)
}

// ForgetVar forgets v: its value is dropped and NewVar may hand out its
// index again. It fails, changing nothing, if v is not live or a live
// clause mentions it; ForgetVars removes such clauses first.
func (s *Solver) ForgetVar(v Var) error {
	if !s.IsLive(v) {
		return fmt.Errorf("saturate: ForgetVar(%d): not a live variable", v)
	}
	for _, slot := range s.occurs[v] {
		if c := &s.clauses[slot]; c.state == clauseLive {
			return fmt.Errorf("saturate: ForgetVar(%d): live clause %v mentions it", v, c.lits)
		}
	}
	s.dropVar(v)
	return nil
}

// ForgetVars removes every live clause that mentions one of vs, then
// forgets vs as ForgetVar does. Assignments of other variables stay, as
// facts where their implying clause was removed. It fails, changing
// nothing, if some v in vs is not live; duplicates are fine.
func (s *Solver) ForgetVars(vs []Var) error {
	for _, v := range vs {
		if !s.IsLive(v) {
			return fmt.Errorf("saturate: ForgetVars: %d is not a live variable", v)
		}
	}
	for _, v := range vs {
		for _, slot := range s.occurs[v] {
			if s.clauses[slot].state == clauseLive {
				s.removeSlot(slot)
			}
		}
	}
	for _, v := range vs {
		if s.live[v] {
			s.dropVar(v)
		}
	}
	s.maybeSweep()
	return nil
}

// dropVar forgets v, which no live clause mentions. Its own watch and
// occurrence lists can hold only removed clauses, so they are simply
// emptied (keeping their capacity for the variable's next life). A queued
// literal of v is skipped by Propagate, as v is now unassigned.
func (s *Solver) dropVar(v Var) {
	p, n := Pos(v), Neg(v)
	s.live[v] = false
	s.value[p], s.value[n] = Unknown, Unknown
	s.reasonOf[v] = isFact
	// Keep small lists for reuse; drop big ones, or every recycled index
	// would keep the largest list it ever had and memory would creep up
	// with the length of the log.
	s.watching[p] = shrink(s.watching[p])
	s.watching[n] = shrink(s.watching[n])
	if cap(s.occurs[v]) > keepCap {
		s.occurs[v] = nil
	} else {
		s.occurs[v] = s.occurs[v][:0]
	}
	s.freeVars = append(s.freeVars, v)
	s.stats.Vars--
}

// maybeSweep sweeps once the removed clauses are as many as the live ones,
// so that the sweep's cost, linear in the lists' total length, is paid for
// by the removals and the lists stay within a constant factor of the live
// clauses.
func (s *Solver) maybeSweep() {
	if len(s.removed) >= s.sweepMin && len(s.removed) >= s.stats.Clauses {
		s.sweep()
	}
}

// sweep drops every watcher and occurrence of a removed clause, after
// which the removed slots can be reused.
func (s *Solver) sweep() {
	for v := 1; v < len(s.live); v++ {
		if !s.live[v] {
			continue
		}
		occ := s.occurs[v][:0]
		for _, slot := range s.occurs[v] {
			if s.clauses[slot].state == clauseLive {
				occ = append(occ, slot)
			}
		}
		s.occurs[v] = occ
		for _, l := range [2]Lit{Pos(Var(v)), Neg(Var(v))} {
			ws := s.watching[l][:0]
			for _, w := range s.watching[l] {
				if s.clauses[w.clause].state == clauseLive && s.value[w.blocker] != True {
					ws = append(ws, w)
				}
			}
			s.watching[l] = ws
		}
	}
	for _, slot := range s.removed {
		s.clauses[slot].state = slotFree
		s.freeSlots = append(s.freeSlots, slot)
	}
	s.removed = s.removed[:0]
}

// keepCap is the largest list capacity a recycled variable keeps.
const keepCap = 16

func shrink(ws []watcher) []watcher {
	if cap(ws) > keepCap {
		return nil
	}
	return ws[:0]
}
