package saturate

import "slices"

// Conflict describes the clause found false under the assignment.
type Conflict struct {
	Clause ClauseID // the conflicting clause (it may have been removed since)
	Lits   []Lit    // its literals, all false, copied when the conflict was found
}

// Reason is one premise of a conflict's explanation: either a clause, or a
// fact, that is, an assignment whose implying clause has been removed (its
// operation was forgotten) and which is therefore taken as given.
type Reason struct {
	Clause ClauseID // NoClause for a fact
	Lits   []Lit    // the clause's literals, or for a fact the one true literal
}

// IsFact reports whether r is a fact rather than a clause.
func (r Reason) IsFact() bool { return r.Clause == NoClause }

// Conflict returns the conflict, or nil if there is none.
func (s *Solver) Conflict() *Conflict { return s.conflict }

// Explain returns the premises that produced the conflict, or nil if there
// is none: the conflicting clause first, then the clauses that implied the
// false literals of clauses already listed, recursively, with facts where
// the implying clause was removed. Unit propagation on the premises alone
// reaches the conflict, so they are unsatisfiable together. A unit clause
// that is still live is listed as a clause, not as a fact.
//
// The explanation is computed when the conflict is found, so it survives
// later removals; callers must not modify it.
func (s *Solver) Explain() []Reason { return s.explanation }

func (s *Solver) setConflict(slot int32) {
	s.stats.Conflicts++
	c := &s.clauses[slot]
	s.conflict = &Conflict{Clause: makeClauseID(slot, c.gen), Lits: slices.Clone(c.lits)}
	s.explanation = s.explain(slot)
}

// explain walks the implication graph back from the conflicting clause in
// slot. The graph is acyclic because a clause implies its lits[0] only
// after all its other literals are false.
func (s *Solver) explain(slot int32) []Reason {
	c := &s.clauses[slot]
	out := []Reason{{Clause: makeClauseID(slot, c.gen), Lits: slices.Clone(c.lits)}}
	seen := make([]bool, len(s.live))
	pending := slices.Clone(c.lits) // false literals still to be justified
	for len(pending) > 0 {
		l := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		v := l.Var()
		if seen[v] {
			continue
		}
		seen[v] = true
		r := s.reasonOf[v]
		if r == isFact {
			out = append(out, Reason{Lits: []Lit{l.Not()}})
			continue
		}
		rc := &s.clauses[r]
		out = append(out, Reason{Clause: makeClauseID(r, rc.gen), Lits: slices.Clone(rc.lits)})
		pending = append(pending, rc.lits[1:]...)
	}
	return out
}
