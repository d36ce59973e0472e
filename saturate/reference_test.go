package saturate

import "fmt"

// refPropagate is the naive reference propagator: starting from facts, it
// scans all clauses again and again, assigning the last open literal of
// any clause whose other literals are false, until nothing changes or some
// clause is false. vals is indexed by Lit and sized for variables up to
// maxVar.
func refPropagate(maxVar Var, clauses [][]Lit, facts []Lit) (vals []Value, conflict bool) {
	vals = make([]Value, 2*int(maxVar)+2)
	set := func(l Lit) bool {
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
			open, n := Lit(0), 0
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
func bruteUnsat(clauses [][]Lit) bool {
	var vars []Var
	index := map[Var]int{}
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
	for v := Var(1); int(v) < len(s.live); v++ {
		p, n := Pos(v), Neg(v)
		if !s.live[v] {
			if s.value[p] != Unknown || s.value[n] != Unknown {
				return fmt.Errorf("forgotten var %d has a value", v)
			}
			if len(s.watching[p])+len(s.watching[n])+len(s.occurs[v]) != 0 {
				return fmt.Errorf("forgotten var %d has watchers or occurrences", v)
			}
			if s.reasonOf[v] != isFact {
				return fmt.Errorf("forgotten var %d has a reason", v)
			}
			continue
		}
		live++
		if s.value[p] != -s.value[n] {
			return fmt.Errorf("var %d: literal values %v/%v disagree", v, s.value[p], s.value[n])
		}
		if r := s.reasonOf[v]; r != isFact {
			c := &s.clauses[r]
			if c.state != clauseLive || c.lits[0].Var() != v || s.value[c.lits[0]] != True {
				return fmt.Errorf("var %d: bad reason %v (state %d)", v, c.lits, c.state)
			}
			for _, l := range c.lits[1:] {
				if s.value[l] != False {
					return fmt.Errorf("var %d: reason %v has non-false %v", v, c.lits, l)
				}
			}
		}
	}
	if live != s.stats.Vars {
		return fmt.Errorf("%d live vars, stats say %d", live, s.stats.Vars)
	}
	nclauses := 0
	for slot := range s.clauses {
		c := &s.clauses[slot]
		if c.state != clauseLive {
			continue
		}
		nclauses++
		satisfied, tautology, open := false, false, 0
		for i, l := range c.lits {
			if !s.live[l.Var()] {
				return fmt.Errorf("clause %v mentions forgotten var %d", c.lits, l.Var())
			}
			found := false
			for _, o := range s.occurs[l.Var()] {
				found = found || o == int32(slot)
			}
			if !found {
				return fmt.Errorf("clause %v missing from occurrences of %d", c.lits, l.Var())
			}
			switch s.value[l] {
			case True:
				satisfied = true
			case Unknown:
				open++
			}
			for _, m := range c.lits[:i] {
				tautology = tautology || m == l.Not()
			}
		}
		if !fixpoint || s.conflict != nil || satisfied || tautology {
			continue
		}
		if open < 2 {
			return fmt.Errorf("clause %v is unit or false at a fixpoint", c.lits)
		}
		for _, l := range c.lits[:2] {
			if s.value[l] != Unknown {
				return fmt.Errorf("clause %v watches assigned %v", c.lits, l)
			}
			found := false
			for _, w := range s.watching[l] {
				found = found || w.clause == int32(slot)
			}
			if !found {
				return fmt.Errorf("clause %v has no watcher on %v", c.lits, l)
			}
		}
	}
	if nclauses != s.stats.Clauses {
		return fmt.Errorf("%d live clauses, stats say %d", nclauses, s.stats.Clauses)
	}
	return nil
}
