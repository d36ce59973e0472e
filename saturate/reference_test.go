package saturate

import (
	"fmt"

	"github.com/satmon/satmon/internal/z"
)

// refPropagate is the naive reference propagator: starting from facts, it
// scans all clauses again and again, assigning the last open literal of
// any clause whose other literals are false, until nothing changes or some
// clause is false. vals is indexed by Lit and sized for variables up to
// maxVar.
func refPropagate(maxVar z.Var, clauses [][]z.Lit, facts []z.Lit) (vals []Value, conflict bool) {
	vals = make([]Value, 2*int(maxVar)+2)
	set := func(l z.Lit) bool {
		if vals[l] == False {
			return false
		}
		vals[l], vals[l.Not()] = True, False
		return true
	}
	for _, f := range facts {
		if !set(f) {
			return vals, true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, c := range clauses {
			open, n := z.Lit(0), 0
			sat := false
			for _, l := range c {
				switch vals[l] {
				case True:
					sat = true
				case Unknown:
					if l != open {
						open = l
						n++
					}
				}
			}
			if sat {
				continue
			}
			switch n {
			case 0:
				return vals, true
			case 1:
				set(open)
				changed = true
			}
		}
	}
	return vals, false
}

// bruteUnsat reports whether clauses are unsatisfiable, trying every
// assignment of the variables they mention.
func bruteUnsat(clauses [][]z.Lit) bool {
	var vars []z.Var
	index := map[z.Var]int{}
	for _, c := range clauses {
		for _, l := range c {
			if _, ok := index[l.Var()]; !ok {
				index[l.Var()] = len(vars)
				vars = append(vars, l.Var())
			}
		}
	}
	if len(vars) > 22 {
		panic(fmt.Sprintf("bruteUnsat: %d variables is too many", len(vars)))
	}
	for m := uint64(0); m < 1<<len(vars); m++ {
		all := true
		for _, c := range clauses {
			sat := false
			for _, l := range c {
				bit := m>>index[l.Var()]&1 == 1
				if bit != l.IsNeg() {
					sat = true
					break
				}
			}
			if !sat {
				all = false
				break
			}
		}
		if all {
			return false
		}
	}
	return true
}

// check verifies the solver's internal invariants; fixpoint says the queue
// has been drained by Propagate, so the watching invariant must hold.
func (s *Solver) check(fixpoint bool) error {
	live := 0
	for v := z.Var(1); int(v) < len(s.vs); v++ {
		p, n := v.Pos(), v.Neg()
		if !s.vs[v].live {
			if s.value[p] != Unknown || s.value[n] != Unknown {
				return fmt.Errorf("forgotten var %d has a value", v)
			}
			if len(s.watching[p])+len(s.watching[n]) != 0 || s.vs[v].units != 0 {
				return fmt.Errorf("forgotten var %d has watchers or unit clauses", v)
			}
			if s.vs[v].reason != isFact {
				return fmt.Errorf("forgotten var %d has a reason", v)
			}
			continue
		}
		live++
		if s.value[p] != -s.value[n] {
			return fmt.Errorf("var %d: literal values %v/%v disagree", v, s.value[p], s.value[n])
		}
		switch r := s.vs[v].reason; {
		case r == isUnit:
			if s.vs[v].units == 0 || s.value[p] == Unknown {
				return fmt.Errorf("var %d: unit reason without a live unit clause or a value", v)
			}
		case r >= 0:
			c := &s.clauses[r]
			if c.state == slotFree {
				return fmt.Errorf("var %d: reason names free slot %d", v, r)
			}
			if c.state != clauseLive || !s.alive(c) {
				break // dead, not collected yet: a fact
			}
			implied := 0
			for _, l := range s.lits(r) {
				switch {
				case l.Var() == v && s.value[l] == True:
					implied++
				case s.value[l] != False:
					return fmt.Errorf("var %d: reason %v has non-false %v", v, s.lits(r), l)
				}
			}
			if implied != 1 {
				return fmt.Errorf("var %d: reason %v does not imply it", v, s.lits(r))
			}
		}
	}
	if live != s.stats.Vars {
		return fmt.Errorf("%d live vars, stats say %d", live, s.stats.Vars)
	}
	// Every watcher names a slot in use, and a binary one carries the
	// clause's other literal and birth.
	for l := range s.watching {
		for _, w := range s.watching[l] {
			slot := w.ref
			if slot < 0 {
				slot = ^slot
			}
			c := &s.clauses[slot]
			if c.state == slotFree || c.birth != w.birth {
				return fmt.Errorf("watcher of %v names slot %d (state %d, birth %d/%d)", z.Lit(l), slot, c.state, c.birth, w.birth)
			}
			if w.ref < 0 && c.state == clauseLive && s.alive(c) {
				if lits := s.lits(slot); len(lits) != 2 || !(lits[0] == z.Lit(l) && lits[1] == w.other || lits[1] == z.Lit(l) && lits[0] == w.other) {
					return fmt.Errorf("binary watcher of %v (other %v) on clause %v", z.Lit(l), w.other, lits)
				}
			}
		}
	}
	used, nclauses, units := 0, 0, 0
	for v := range s.vs {
		units += int(s.vs[v].units)
	}
	if units != s.nunits {
		return fmt.Errorf("%d unit clauses, counter says %d", units, s.nunits)
	}
	for slot := range s.clauses {
		c := &s.clauses[slot]
		if c.state != slotFree {
			used++
		}
		if c.state != clauseLive || !s.alive(c) {
			continue
		}
		nclauses++
		lits := s.lits(int32(slot))
		satisfied, tautology, open := false, false, 0
		for i, l := range lits {
			if !s.vs[l.Var()].live {
				return fmt.Errorf("clause %v mentions forgotten var %d", lits, l.Var())
			}
			switch s.value[l] {
			case True:
				satisfied = true
			case Unknown:
				open++
			}
			for _, m := range lits[:i] {
				tautology = tautology || m == l.Not()
			}
		}
		if !fixpoint || s.conflict != nil || satisfied || tautology {
			continue
		}
		if open < 2 {
			return fmt.Errorf("clause %v is unit or false at a fixpoint", lits)
		}
		ref := int32(slot)
		if len(lits) == 2 {
			ref = ^ref
		}
		for _, l := range lits[:2] {
			if s.value[l] != Unknown {
				return fmt.Errorf("clause %v watches assigned %v", lits, l)
			}
			found := false
			for _, w := range s.watching[l] {
				found = found || w.ref == ref
			}
			if !found {
				return fmt.Errorf("clause %v has no watcher on %v", lits, l)
			}
		}
	}
	if used != s.used {
		return fmt.Errorf("%d slots in use, counter says %d", used, s.used)
	}
	if st := s.Stats(); nclauses+units != st.Clauses {
		return fmt.Errorf("%d live clauses, stats say %d", nclauses+units, st.Clauses)
	}
	return nil
}
