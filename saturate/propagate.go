package saturate

import "github.com/satmon/satmon/internal/z"

// Propagate derives every unit consequence of the live clauses and the
// current assignment. It returns false if a conflict has been found, now
// or earlier: a conflict is permanent, and Conflict and Explain describe
// it.
func (s *Solver) Propagate() bool {
	if s.conflict != nil {
		return false
	}
	for s.qhead < len(s.queue) {
		p := s.queue[s.qhead]
		s.qhead++
		if s.value[p] != True {
			continue // its variable was forgotten after p was queued
		}
		s.stats.Propagations++
		// Most lists of ¬p are empty (a satisfied clause is watched no
		// more): tested here, where Propagate is inlined, they cost no call.
		if len(s.watching[p.Not()]) != 0 && !s.propagateLit(p) {
			return false
		}
	}
	s.queue = s.queue[:0]
	s.qhead = 0
	return true
}

// propagateLit visits the clauses watching ¬p now that p is true, the
// two-watched-literal way: each clause either finds another literal to
// watch, or is satisfied, or implies its other watched literal, or is in
// conflict. It reports false on conflict.
//
// Nothing is ever unassigned, so a satisfied clause stays satisfied while
// it lives and need not be watched any more; a unit clause is satisfied as
// soon as its literal is assigned. So, unlike in a backtracking solver, no
// watcher stays on a false literal and the list of ¬p ends up empty
// (watchers of removed clauses are dropped on the way too).
//
// A binary clause is handled from its watcher alone. A watcher of a dead
// clause (one of its variables forgotten since it was added) is dropped
// without acting: its literals may now name recycled variables.
func (s *Solver) propagateLit(p z.Lit) bool {
	falseLit := p.Not()
	value := s.value
	forgotAt := s.forgotAt
	ws := s.watching[falseLit]
	if len(ws) == 0 {
		return true // nothing to visit, nor to write back
	}
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		if value[w.other] == True {
			continue
		}
		if w.ref < 0 {
			// Binary: falseLit's variable is live (forgetting empties
			// its lists), so the clause is alive iff other's is.
			if forgotAt[w.other.Var()] >= w.birth {
				continue
			}
			if value[w.other] == False {
				s.watching[falseLit] = ws[:copy(ws, ws[i:])]
				slot := ^w.ref
				s.setConflict(makeClauseID(slot, s.clauses[slot].gen), s.lits(slot))
				return false
			}
			s.assign(w.other, ^w.ref)
			continue
		}
		c := &s.clauses[w.ref]
		if c.state != clauseLive {
			continue
		}
		lits := s.arena[c.start : c.start+c.size : c.start+c.size]
		dead := false
		for _, l := range lits {
			if forgotAt[l.Var()] >= c.birth {
				dead = true
				break
			}
		}
		if dead {
			continue
		}
		// Keep the false watched literal at lits[1] so that lits[0] is
		// the one that will be implied if no replacement is found.
		if lits[0] == falseLit {
			lits[0], lits[1] = lits[1], falseLit
		}
		first := lits[0]
		if value[first] == True {
			continue
		}
		k := 2
		for k < len(lits) && value[lits[k]] == False {
			k++
		}
		if k < len(lits) {
			// A true lits[k] satisfies the clause; an unknown one takes
			// over the watch.
			if value[lits[k]] == Unknown {
				lits[1], lits[k] = lits[k], falseLit
				s.watching[lits[1]] = append(s.watching[lits[1]], watcher{other: first, ref: w.ref, birth: w.birth})
			}
			continue
		}
		if value[first] == False {
			// Leave the solver consistent for later removals.
			s.watching[falseLit] = ws[:copy(ws, ws[i:])]
			s.setConflict(makeClauseID(w.ref, c.gen), lits)
			return false
		}
		// The clause is unit; once first is assigned it is satisfied, so
		// it need not be watched any more.
		s.assign(first, w.ref)
	}
	s.watching[falseLit] = ws[:0]
	return true
}
