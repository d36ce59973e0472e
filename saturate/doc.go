// Package saturate is an incremental Boolean constraint propagation engine that never branches and can forget.
//
// A Solver holds clauses over variables and derives their unit consequences
// with the two-watched-literal scheme of MiniSat. There are no decisions,
// so every assignment is a permanent fact: there is one decision level, no
// trail to undo, and a conflict, once found, stays. That is what a
// monitor needs: it adds clauses as events arrive, calls Propagate, and a
// conflict proves a violation.
//
// # Encoding
//
// Variables (Var) are numbered from 1. A literal (Lit) is 2*v for v and
// 2*v+1 for ¬v; see Pos, Neg, Lit.Not, Lit.Var and Lit.IsNeg. A Value is
// Unknown, True or False.
//
// # Use
//
//	s := saturate.New()
//	a, b := s.NewVar(), s.NewVar()
//	s.AddClause(saturate.Neg(a), saturate.Pos(b)) // a → b
//	s.AddClause(saturate.Pos(a))                  // assigns a at once
//	if !s.Propagate() {                           // derives b
//		fmt.Println(s.Conflict(), s.Explain())
//	}
//
// AddClause may be called at any time and acts on the current assignment
// at once (see its documentation for unit, satisfied, false and
// tautological clauses); Propagate then derives the consequences to a
// fixpoint. After a conflict, Conflict names the false clause and Explain
// lists the clauses and facts from which unit propagation derives it,
// copied at conflict time.
//
// # Forgetting
//
// Memory stays bounded on endless input because clauses and variables can
// be removed and their storage reused:
//
//   - RemoveClause(id) removes one clause. Whatever it implied stays
//     assigned and becomes a fact (Explain reports it as such). Handles
//     carry a generation, so a stale handle is ignored rather than
//     removing the clause that reuses its slot.
//   - ForgetVar(v) drops the value of v and lets NewVar reuse its index; no
//     live clause may mention v (it returns an error otherwise).
//   - ForgetVars(vs) is the usual operation: it removes every clause that
//     mentions one of vs, using per-variable occurrence lists, then
//     forgets vs. Values derived for the remaining variables stay, even if
//     they were derived through the removed clauses.
//
// Removed clauses are detached lazily: their watchers and occurrences are
// dropped when met, or by a sweep that runs once as many clauses have been
// removed as are live, after which their slots are reused.
//
// # Measured choices
//
// BenchmarkPropagate (a sliding window of operations with strict-order
// axioms, see bench_test.go) decided these: watchers carry a blocker
// literal and the sweep drops watchers of satisfied clauses (about 15%
// faster than bare clause references); sweeping when removed clauses
// reach the live count beats 1/2 or 4 times it; and lazy detachment with
// sweeps beat tagging every list entry with the clause's generation so
// that slots could be reused at once (10-20% slower).
//
// A Solver is not safe for concurrent use.
package saturate
