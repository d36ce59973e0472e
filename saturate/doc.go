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
// Variables and literals are internal/z's, shared with the encoder and the
// SAT backends: a z.Var is numbered from 1, and a z.Lit is v<<1 for v and
// v<<1|1 for ¬v (MiniSat's and gini's encoding; see z.Var.Pos, z.Var.Neg,
// z.Lit.Not, z.Lit.Var). The solver indexes its per-literal tables by the
// literal itself. A Value is Unknown, True or False.
//
// # Use
//
//	s := saturate.New()
//	a, b := s.NewVar(), s.NewVar()
//	s.AddClause(a.Neg(), b.Pos()) // a → b
//	s.AddClause(a.Pos())          // assigns a at once
//	if !s.Propagate() {           // derives b
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
// # Storage
//
// Clause storage follows MiniSat and gini. A unit clause is not stored:
// it is a mark on its variable and an assignment (a fact with a handle). A
// binary clause lives in its two watchers, which carry the other literal,
// so propagating through it reads neither the clause table nor the
// literals. Longer clauses keep their literals in one arena, a single
// slice, reached through a table of slots that handles (ClauseID) name.
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
//     mentions one of vs, then forgets vs. Values derived for the
//     remaining variables stay, even if they were derived through the
//     removed clauses.
//
// Forgetting visits no clause. Each forgetting is an epoch; a variable
// records the epoch in which it was last forgotten and a clause the epoch
// in which it was added, so a clause is dead as soon as one of its
// variables has been forgotten in or after its own epoch. Propagation
// drops the watchers of dead clauses when it meets them, and an
// assignment whose reason is dead is a fact. A collection, run once the
// table holds twice the clauses alive after the previous one, frees the
// slots of dead and removed clauses, compacts the arena into its spare
// half and drops their watchers; its cost is paid for by the additions
// since.
//
// A Solver is not safe for concurrent use.
package saturate
