package saturate

import (
	"slices"

	"github.com/satmon/satmon/internal/z"
)

// Conflict describes the clause found false under the assignment.
type Conflict struct {
	Clause ClauseID // the conflicting clause (it may have been removed since)
	Lits   []z.Lit  // its literals, all false, copied when the conflict was found
}

// Reason is one premise of a conflict's explanation: either a clause, or a
// fact, that is, an assignment whose implying clause has been removed (its
// operation was forgotten) and which is therefore taken as given.
type Reason struct {
	Clause ClauseID // NoClause for a fact
	Lits   []z.Lit  // the clause's literals, or for a fact the one true literal
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

// setConflict records the conflict of the clause id, whose literals lits
// are all false.
func (s *Solver) setConflict(id ClauseID, lits []z.Lit) {
	s.stats.Conflicts++
	s.conflict = &Conflict{Clause: id, Lits: slices.Clone(lits)}
	s.explanation = s.explain(id, lits)
}

// explain walks the implication graph back from the conflicting clause.
// The graph is acyclic because a clause implies a literal only after all
// its other literals are false. A reason clause that has died since (one
// of its variables forgotten) but is not collected yet counts as gone:
// the assignment is a fact.
func (s *Solver) explain(id ClauseID, lits []z.Lit) []Reason {
	out := []Reason{{Clause: id, Lits: slices.Clone(lits)}}
	seen := make([]bool, len(s.vs))
	pending := slices.Clone(lits) // false literals still to be justified
	for len(pending) > 0 {
		l := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		v := l.Var()
		if seen[v] {
			continue
		}
		seen[v] = true
		r := s.vs[v].reason
		switch {
		case r == isUnit:
			out = append(out, Reason{Clause: unitID(v, s.vs[v].gen), Lits: []z.Lit{l.Not()}})
			continue
		case r == isFact || s.clauses[r].state != clauseLive || !s.alive(&s.clauses[r]):
			out = append(out, Reason{Lits: []z.Lit{l.Not()}})
			continue
		}
		rl := slices.Clone(s.lits(r))
		if rl[0].Var() != v {
			// A binary clause may have implied its second literal; the
			// implied literal comes first, as in longer clauses.
			rl[0], rl[1] = rl[1], rl[0]
		}
		out = append(out, Reason{Clause: makeClauseID(r, s.clauses[r].gen), Lits: rl})
		for _, m := range rl {
			if m.Var() != v {
				pending = append(pending, m)
			}
		}
	}
	return out
}
